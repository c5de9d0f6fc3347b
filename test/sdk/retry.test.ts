/**
 * The retry policy against a MockAgent: what is retried, what is not, how long the client waits.
 * Waits are recorded by an injected sleep, so nothing here actually sleeps.
 */
import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  IdempotencyError,
  InternalServerError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ValidationError,
} from "@gateway-keys/sdk";
import fc from "fast-check";
import { envelope, JSON_HEADERS, keyRecord, mockGateway, NEW_SECRET } from "./support/mock-gateway";

const CREATE = { path: "/v1/account/api-keys", method: "POST" } as const;
const created = { ...keyRecord(), secret: NEW_SECRET };

function socketError(): Error {
  return Object.assign(new Error("other side closed"), { code: "ECONNRESET" });
}

describe("retries", () => {
  test("waits 500ms doubling per retry, capped at 8s, when jitter is zero", async () => {
    const { pool, client, sleeps, done } = mockGateway({ maxRetries: 6 });
    pool.intercept(CREATE).reply(503, envelope("internal_error")).times(6);
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await client.apiKeys.create({ name: "ci" });

    expect(sleeps).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    await done();
  });

  test("takes at most a quarter off each delay as jitter, never adding to it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 5, maxLength: 5 }), async (randoms) => {
        const queue = [...randoms];
        const { pool, client, sleeps, done } = mockGateway({ maxRetries: 5, backoff: { random: () => queue.shift()! } });
        pool.intercept(CREATE).reply(500, envelope("internal_error")).times(5);
        pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

        await client.apiKeys.create({ name: "ci" });

        const ceilings = [500, 1000, 2000, 4000, 8000];
        sleeps.forEach((ms, i) => {
          expect(ms).toBeGreaterThanOrEqual(Math.floor(ceilings[i]! * 0.75));
          expect(ms).toBeLessThanOrEqual(ceilings[i]!);
        });
        expect(sleeps).toHaveLength(5);
        await done();
      }),
      { numRuns: 25 },
    );
  });

  test("honours Retry-After given in seconds instead of its own schedule", async () => {
    const { pool, client, sleeps, done } = mockGateway();
    pool.intercept(CREATE).reply(429, envelope("rate_limited"), { headers: { "retry-after": "3" } });
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await client.apiKeys.create({ name: "ci" });

    expect(sleeps).toEqual([3000]);
    await done();
  });

  test("honours retry-after-ms (a key's rate limit) before Retry-After, to the millisecond", async () => {
    const { pool, client, sleeps, done } = mockGateway({ maxRetries: 2 });
    pool.intercept(CREATE).reply(429, envelope("key_rate_limited"), { headers: { "retry-after": "2", "retry-after-ms": "1234" } });
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await client.apiKeys.create({ name: "ci" });

    expect(sleeps).toEqual([1234]);
    await done();
  });

  test("honours Retry-After given as an HTTP date", async () => {
    const { pool, client, sleeps, done } = mockGateway();
    const at = new Date(Date.now() + 20_000).toUTCString();
    pool.intercept(CREATE).reply(503, envelope("internal_error"), { headers: { "retry-after": at } });
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await client.apiKeys.create({ name: "ci" });

    // HTTP dates have one-second resolution, so the wait is the rest of the 20 s, give or take one.
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]!).toBeGreaterThan(18_000);
    expect(sleeps[0]!).toBeLessThanOrEqual(20_000);
    await done();
  });

  test("caps a Retry-After longer than maxRetryAfterMs", async () => {
    const { pool, client, sleeps, done } = mockGateway({ backoff: { maxRetryAfterMs: 5_000 } });
    pool.intercept(CREATE).reply(429, envelope("rate_limited"), { headers: { "retry-after": "3600" } });
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await client.apiKeys.create({ name: "ci" });

    expect(sleeps).toEqual([5_000]);
    await done();
  });

  test("gives up after maxRetries retries and throws the last answer's error", async () => {
    const { pool, client, sent, done } = mockGateway({ maxRetries: 3 });
    pool.intercept(CREATE).reply(502, envelope("internal_error")).times(4);

    const error = await client.apiKeys.create({ name: "ci" }).then(() => null, (e: unknown) => e);

    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 502, code: "internal_error" });
    expect(sent()).toHaveLength(4);
    await done();
  });

  test("makes exactly one attempt when a call sets maxRetries to 0", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(CREATE).reply(503, envelope("internal_error"));

    await expect(client.apiKeys.create({ name: "ci" }, { maxRetries: 0 })).rejects.toBeInstanceOf(InternalServerError);
    expect(sent()).toHaveLength(1);
    await done();
  });

  test.each([408, 429, 500, 502, 503, 504])("retries a create answered %i", async (status) => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(CREATE).reply(status, status === 408 ? "" : envelope(status === 429 ? "rate_limited" : "internal_error"));
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await expect(client.apiKeys.create({ name: "ci" })).resolves.toMatchObject({ secret: NEW_SECRET });
    expect(sent()).toHaveLength(2);
    await done();
  });

  test("retries a 409 idempotency_in_flight", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(CREATE).reply(409, envelope("idempotency_in_flight"));
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await expect(client.apiKeys.create({ name: "ci" })).resolves.toMatchObject({ keyId: "key_1" });
    expect(sent()).toHaveLength(2);
    await done();
  });

  test("retries a connection reset and returns the replayed answer", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(CREATE).replyWithError(socketError());
    pool.intercept(CREATE).reply(201, created, { headers: { ...JSON_HEADERS, "idempotent-replayed": "true" } });

    const { data, response } = await client.apiKeys.create({ name: "ci" }).withResponse();

    expect(data.secret).toBe(NEW_SECRET);
    expect(response).toMatchObject({ replayed: true, attempts: 2 });
    expect(sent()).toHaveLength(2);
    await done();
  });

  test("throws ConnectionError with the cause's code after connection errors exhaust the retries", async () => {
    const { pool, client, sent, done } = mockGateway({ maxRetries: 2 });
    pool.intercept(CREATE).replyWithError(socketError()).times(3);

    const error = await client.apiKeys.create({ name: "ci" }).then(() => null, (e: unknown) => e);

    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: "connection_error" });
    expect((error as Error).cause).toMatchObject({ code: "ECONNRESET" });
    expect(sent()).toHaveLength(3);
    await done();
  });

  test("retries a GET that failed with 503", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path: "/v1/account/api-keys?limit=20", method: "GET" }).reply(503, envelope("internal_error"));
    pool
      .intercept({ path: "/v1/account/api-keys?limit=20", method: "GET" })
      .reply(200, { object: "list", data: [keyRecord()], has_more: false, next_cursor: null }, { headers: JSON_HEADERS });

    const page = await client.apiKeys.list({ limit: 20 });

    expect(page.data.map((key) => key.keyId)).toEqual(["key_1"]);
    expect(sent().map((r) => r.method)).toEqual(["GET", "GET"]);
    await done();
  });

  const definite: [string, number, ReturnType<typeof envelope>, new (...args: never[]) => Error][] = [
    ["a stale-version 409 conflict", 409, envelope("conflict", "stale", { currentVersion: 4 }), ConflictError],
    ["a 409 key_revoked", 409, envelope("key_revoked"), ConflictError],
    ["a 400 validation_failed", 400, envelope("validation_failed", "bad", { param: "name" }), ValidationError],
    ["a 401 invalid_credentials", 401, envelope("invalid_credentials"), AuthenticationError],
    ["a 403 wrong_key_kind", 403, envelope("wrong_key_kind"), PermissionError],
    ["a 404 key_not_found", 404, envelope("key_not_found"), NotFoundError],
    ["a 422 idempotency_key_reused", 422, envelope("idempotency_key_reused"), IdempotencyError],
  ];
  test.each(definite)("does not retry %s", async (_label, status, body, ErrorClass) => {
    const { pool, client, sent, sleeps, done } = mockGateway();
    const path = "/v1/account/api-keys/key_1/rotate";
    pool.intercept({ path, method: "POST" }).reply(status, body, { headers: JSON_HEADERS });

    await expect(client.apiKeys.rotate("key_1", { expectedVersion: 3 })).rejects.toBeInstanceOf(ErrorClass);
    expect(sent()).toHaveLength(1);
    expect(sleeps).toEqual([]);
    await done();
  });

  test("exposes Retry-After on the RateLimitError after the retries run out", async () => {
    const { pool, client, done } = mockGateway({ maxRetries: 1 });
    pool.intercept(CREATE).reply(429, envelope("rate_limited"), { headers: { "retry-after": "2" } }).times(2);

    const error = await client.apiKeys.create({ name: "ci" }).then(() => null, (e: unknown) => e);

    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfterMs: 2000 });
    await done();
  });

  test("logs one line per retry naming the reason and the wait", async () => {
    const { pool, client, logLines, done } = mockGateway();
    pool.intercept(CREATE).reply(503, envelope("internal_error"));
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await client.apiKeys.create({ name: "ci" });

    expect(logLines).toHaveLength(1);
    expect(logLines[0]).toMatch(/^retrying POST \/v1\/account\/api-keys after 503 \(attempt 2 of 3\) in 500ms/);
    await done();
  });
});
