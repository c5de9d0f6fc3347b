/**
 * How answers become data or typed errors: contract parsing, the error factory, messages that say
 * what to do next.
 */
import {
  APIError,
  AuthenticationError,
  ConflictError,
  IdempotencyError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitError,
  ResponseValidationError,
  SpendLimitError,
  ValidationError,
} from "@gateway-keys/sdk";
import { envelope, JSON_HEADERS, keyRecord, mockGateway, NEW_SECRET } from "./support/mock-gateway";

const CREATE = { path: "/v1/account/api-keys", method: "POST" } as const;
const PATCH = { path: "/v1/account/api-keys/key_7", method: "PATCH" } as const;

async function failure(promise: PromiseLike<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );
}

describe("answers that fit the contract", () => {
  test("tolerates fields the contract does not know and strips them; extension fields a gateway leaves out read as null", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(CREATE).reply(201, { ...keyRecord(), secret: NEW_SECRET, futureField: { nested: true } }, { headers: JSON_HEADERS });

    const key = await client.apiKeys.create({ name: "ci" });

    expect(key).toEqual({
      ...keyRecord(),
      clientReference: null,
      previousSecretExpiresAt: null,
      rateLimitPolicy: null,
      expiresAt: null,
      expired: false,
      labels: {},
      lastUsedAt: null,
      spendWindow: null,
      spendWindows: [],
      teamId: null,
      budgetAlertThresholds: [],
      expiryWarningSeconds: null,
      rotateAfterSeconds: null,
      currentSecret: null,
      previousSecret: null,
      secret: NEW_SECRET,
    });
    await done();
  });
});

describe("answers that do not fit the contract", () => {
  test("a 2xx body that is not JSON is a ResponseValidationError at (body)", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(CREATE).reply(201, "<html>ok</html>", { headers: { "content-type": "text/html" } });

    const error = await failure(client.apiKeys.create({ name: "ci" }));

    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({ code: "invalid_response", status: 201, path: "(body)" });
    await done();
  });

  test("a create answer without its secret names the missing field", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(CREATE).reply(201, keyRecord(), { headers: JSON_HEADERS });

    const error = await failure(client.apiKeys.create({ name: "ci" }));

    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({ code: "invalid_response", path: "secret" });
    expect((error as Error).message).toContain("secret: ");
    await done();
  });

  test("a list item with a bad field names its index and field", async () => {
    const { pool, client, done } = mockGateway();
    const items = [keyRecord({ keyId: "a" }), { ...keyRecord({ keyId: "b" }), version: "2" }];
    pool.intercept({ path: "/v1/account/api-keys", method: "GET" }).reply(200, { object: "list", data: items, has_more: false, next_cursor: null }, { headers: JSON_HEADERS });

    const error = await failure(client.apiKeys.list());

    expect(error).toMatchObject({ code: "invalid_response", path: "data[1].version" });
    await done();
  });

  test("a nested field of the wrong type is named by its dotted path", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(PATCH).reply(200, { ...keyRecord(), loggingPolicy: { storeRequest: "yes", storeResponse: false, retentionDays: 30 } }, { headers: JSON_HEADERS });

    const error = await failure(client.apiKeys.update("key_7", { expectedVersion: 1, name: "x" }));

    expect(error).toMatchObject({ code: "invalid_response", path: "loggingPolicy.storeRequest" });
    await done();
  });
});

describe("error answers", () => {
  const cases: [number, ReturnType<typeof envelope>, new (...args: never[]) => APIError][] = [
    [400, envelope("validation_failed", "must be greater than 0", { param: "spendPolicy.limitUnits" }), ValidationError],
    [401, envelope("invalid_credentials"), AuthenticationError],
    [402, envelope("spend_limit_reached"), SpendLimitError],
    [403, envelope("missing_scope"), PermissionError],
    [404, envelope("key_not_found"), NotFoundError],
    [409, envelope("conflict", "stale", { currentVersion: 3 }), ConflictError],
    [413, envelope("payload_too_large"), PayloadTooLargeError],
    [422, envelope("idempotency_key_reused"), IdempotencyError],
    [429, envelope("rate_limited"), RateLimitError],
    [500, envelope("internal_error"), InternalServerError],
  ];
  test.each(cases)("status %i becomes the matching APIError subclass with the envelope's code", async (status, body, ErrorClass) => {
    const { pool, client, done } = mockGateway({ maxRetries: 0 });
    pool.intercept(PATCH).reply(status, body, { headers: { ...JSON_HEADERS, "x-request-id": "req_42" } });

    const error = await failure(client.apiKeys.update("key_7", { expectedVersion: 1, name: "x" }));

    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toMatchObject({ status, code: body.error.code, type: body.error.type, requestId: "req_42", enveloped: true });
    await done();
  });

  test("a validation error carries the field path in param and the message", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(CREATE).reply(400, envelope("validation_failed", "spendPolicy.limitUnits: must be greater than 0", { param: "spendPolicy.limitUnits" }));

    const error = await failure(client.apiKeys.create({ name: "ci", spendPolicy: { limitUnits: "0" } }));

    expect(error).toMatchObject({ code: "validation_failed", param: "spendPolicy.limitUnits" });
    expect((error as Error).message).toContain("spendPolicy.limitUnits");
    await done();
  });

  test("a stale-version conflict exposes currentVersion and says how to retry", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(PATCH).reply(409, envelope("conflict", "version mismatch", { currentVersion: 5 }));

    const error = await failure(client.apiKeys.update("key_7", { expectedVersion: 3, name: "x" }));

    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: "conflict", currentVersion: 5 });
    expect((error as Error).message).toBe("key key_7 changed since version 3 (now 5): re-read it and retry with expectedVersion 5");
    await done();
  });

  test("a revoked key is a ConflictError with code key_revoked that says to create a new key", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept({ path: "/v1/account/api-keys/key_7/rotate", method: "POST" }).reply(409, envelope("key_revoked", "revoked"));

    const error = await failure(client.apiKeys.rotate("key_7", { expectedVersion: 2 }));

    expect(error).toMatchObject({ constructor: ConflictError, code: "key_revoked", currentVersion: undefined });
    expect((error as Error).message).toMatch(/key key_7 is revoked .*create a new key/);
    await done();
  });

  test("a gateway message is followed by what to do next", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(CREATE).reply(403, envelope("wrong_key_kind", "a regular API key cannot call the account API."));

    const error = await failure(client.apiKeys.create({ name: "ci" }));

    expect((error as Error).message).toBe(
      "a regular API key cannot call the account API: account endpoints take a provisioning key, model endpoints a regular API key",
    );
    await done();
  });

  test("a non-JSON error body becomes an APIError with code http_<status>", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(PATCH).reply(418, "<html>I'm a teapot</html>", { headers: { "content-type": "text/html" } });

    const error = await failure(client.apiKeys.update("key_7", { expectedVersion: 1, name: "x" }));

    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 418, code: "http_418", enveloped: false, type: undefined });
    expect((error as Error).message).toMatch(/PATCH \/v1\/account\/api-keys\/key_7 answered 418 without the gateway's error envelope/);
    await done();
  });

  test("a 502 from a proxy with an HTML body is an InternalServerError once retries run out", async () => {
    const { pool, client, done } = mockGateway({ maxRetries: 1 });
    pool.intercept(CREATE).reply(502, "<html>Bad Gateway</html>").times(2);

    const error = await failure(client.apiKeys.create({ name: "ci" }));

    expect(error).toMatchObject({ constructor: InternalServerError, status: 502, code: "http_502" });
    await done();
  });

  test("an error body that is JSON but not the envelope is treated as no envelope", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(PATCH).reply(404, { message: "Not Found" }, { headers: JSON_HEADERS });

    const error = await failure(client.apiKeys.update("key_7", { expectedVersion: 1, name: "x" }));

    expect(error).toMatchObject({ constructor: NotFoundError, code: "http_404", enveloped: false });
    await done();
  });
});
