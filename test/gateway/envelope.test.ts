/**
 * Every error leaves in the one envelope with a documented code — Fastify's own (bad URL encoding,
 * over-long path parameters, parser errors) included — and never echoes the raw path. Inputs a
 * route does not declare are refused, never ignored.
 */
import { ERROR_CODES } from "@gateway-keys/contract";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError, useGateway } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;

useGateway((started, client) => {
  gateway = started;
  account = client;
});

const keysNamed = async (name: string) => (await account.listAll()).filter((key) => key.name === name);

describe("paths Fastify cannot route", () => {
  test("a path that is not valid percent-encoding answers 400 validation_failed naming the path, without echoing it", async () => {
    const answer = await call(gateway.baseUrl, "GET", "/v1/account/api-keys/%zz", { bearer: gateway.provisioningKey });
    const error = expectError(answer, 400, "validation_failed");
    expect(error.param).toBe("path");
    expect(answer.text).not.toContain("%zz");
  });

  test("a path parameter longer than any id answers 400 validation_failed in the envelope, not Fastify's 414", async () => {
    const long = "k".repeat(500);
    const answer = await call(gateway.baseUrl, "POST", `/v1/account/api-keys/${long}/rotate`, {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      body: { expectedVersion: 1 },
    });
    expect(expectError(answer, 400, "validation_failed").param).toBe("path");
    expect(answer.text).not.toContain(long);
  });

  test("a key id that is not one answers 400 validation_failed naming keyId, without echoing it", async () => {
    const answer = await account.get("gwk_not-a-key-id");
    const error = expectError(answer, 400, "validation_failed");
    expect(error.param).toBe("keyId");
    expect(answer.text).not.toContain("gwk_not-a-key-id");
  });

  test("every status the gateway answered above has its code in the contract's table", () => {
    expect(Object.keys(ERROR_CODES)).toEqual(expect.arrayContaining(["validation_failed", "route_not_found", "invalid_json"]));
  });
});

describe("unknown query parameters", () => {
  test("POST /v1/account/api-keys?dry_run=true answers 400 validation_failed naming dry_run and creates nothing", async () => {
    const answer = await call(gateway.baseUrl, "POST", "/v1/account/api-keys?dry_run=true", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      body: { name: "dry run" },
    });
    const error = expectError(answer, 400, "validation_failed");
    expect(error.param).toBe("dry_run");
    expect(error.message).toBe("Invalid query parameters: (query): unknown field(s) dry_run.");
    expect(await keysNamed("dry run")).toHaveLength(0);
  });

  test.each([
    ["GET", "/v1/models"],
    ["GET", "/v1/startups"],
    ["POST", "/v1/responses"],
    ["GET", "/v1/account/usage/summary"],
    ["GET", "/v1/account/metrics"],
    ["GET", "/v1/account/whoami"],
    ["GET", "/v1/account/api-keys/KEY"],
    ["PATCH", "/v1/account/api-keys/KEY"],
    ["POST", "/v1/account/api-keys/KEY/rotate"],
    ["POST", "/v1/account/api-keys/KEY/revoke"],
  ])("%s %s?verbose=1 answers 400 validation_failed naming verbose and changes nothing", async (method, pattern) => {
    const key = await gateway.createRegularKey({ name: "queried" });
    const path = pattern.replace("KEY", key.keyId);
    const onAccountApi = path.startsWith("/v1/account/");
    const body =
      method === "GET" ? undefined : path === "/v1/responses" ? { model: "echo-1", input: "hi" } : method === "PATCH" ? { expectedVersion: 1, name: "changed" } : { expectedVersion: 1 };
    const answer = await call(gateway.baseUrl, method, `${path}?verbose=1`, {
      bearer: onAccountApi ? gateway.provisioningKey : key.secret,
      ...(body === undefined ? {} : { body, idempotencyKey: "auto" }),
    });
    expect(expectError(answer, 400, "validation_failed").param).toBe("verbose");
    const after = await account.get(key.keyId);
    expect(after.body).toMatchObject({ version: 1, name: "queried", state: "active" });
  });
});

describe("fields that reach a prototype", () => {
  test("a __proto__ field answers 400 validation_failed naming it, and creates nothing", async () => {
    const answer = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      rawBody: '{"name":"polluted","__proto__":{"isAdmin":true}}',
    });
    const error = expectError(answer, 400, "validation_failed");
    expect(error.param).toBe("__proto__");
    expect(error.message).toContain("__proto__");
    expect(await keysNamed("polluted")).toHaveLength(0);
  });

  test("a nested constructor.prototype field answers 400 validation_failed naming its path", async () => {
    const answer = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      rawBody: '{"name":"polluted too","spendPolicy":{"limitUnits":"1","constructor":{"prototype":{"x":1}}}}',
    });
    expect(expectError(answer, 400, "validation_failed").param).toBe("spendPolicy.constructor");
    expect(await keysNamed("polluted too")).toHaveLength(0);
  });

  test("a body that is not JSON still answers 400 invalid_json without quoting the body", async () => {
    const answer = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "auto",
      rawBody: '{"name": "gwk_unterminated',
    });
    expectError(answer, 400, "invalid_json");
    expect(answer.text).not.toContain("gwk_unterminated");
  });
});
