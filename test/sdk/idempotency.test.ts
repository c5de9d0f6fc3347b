/**
 * Idempotency keys on the wire: one per logical call, chosen before the first attempt, identical on
 * every retry; a caller's key wins.
 */
import { InvalidArgumentError } from "@gateway-keys/sdk";
import { envelope, JSON_HEADERS, keyRecord, mockGateway, NEW_SECRET } from "./support/mock-gateway";

const CREATE = { path: "/v1/account/api-keys", method: "POST" } as const;
const ROTATE = { path: "/v1/account/api-keys/key_1/rotate", method: "POST" } as const;
const created = { ...keyRecord(), secret: NEW_SECRET };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function reset(): Error {
  return Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
}

describe("idempotency keys", () => {
  test("sends the same Idempotency-Key on every attempt of one create", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(CREATE).replyWithError(reset());
    pool.intercept(CREATE).reply(503, envelope("internal_error"));
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await client.apiKeys.create({ name: "ci" });

    const keys = sent().map((request) => request.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    await done();
  });

  test("sends the caller's Idempotency-Key on every attempt instead of making one", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(ROTATE).reply(500, envelope("internal_error"));
    pool.intercept(ROTATE).reply(200, created, { headers: JSON_HEADERS });

    const { response } = await client.apiKeys.rotate("key_1", { expectedVersion: 1 }, { idempotencyKey: "deploy-42-rotate" }).withResponse();

    expect(sent().map((request) => request.headers["idempotency-key"])).toEqual(["deploy-42-rotate", "deploy-42-rotate"]);
    expect(response.idempotencyKey).toBe("deploy-42-rotate");
    await done();
  });

  test("chooses a fresh key for each logical call", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS }).times(2);

    await client.apiKeys.create({ name: "ci" });
    await client.apiKeys.create({ name: "ci" });

    const [first, second] = sent().map((request) => request.headers["idempotency-key"]);
    expect(first).toMatch(UUID);
    expect(second).toMatch(UUID);
    expect(first).not.toBe(second);
    await done();
  });

  test("asks the client's generator once per call, not once per attempt", async () => {
    let made = 0;
    const { pool, client, sent, done } = mockGateway({ generateIdempotencyKey: () => `gen-${++made}` });
    pool.intercept(CREATE).replyWithError(reset());
    pool.intercept(CREATE).reply(201, created, { headers: JSON_HEADERS });

    await client.apiKeys.create({ name: "ci" });

    expect(made).toBe(1);
    expect(sent().map((request) => request.headers["idempotency-key"])).toEqual(["gen-1", "gen-1"]);
    await done();
  });

  test.each([
    ["update", "PATCH", "/v1/account/api-keys/key_1"],
    ["revoke", "POST", "/v1/account/api-keys/key_1/revoke"],
  ] as const)("gives %s an Idempotency-Key too", async (verb, method, path) => {
    const { pool, client, sent, done } = mockGateway();
    pool.intercept({ path, method }).reply(200, keyRecord({ version: 2 }), { headers: JSON_HEADERS });

    if (verb === "update") await client.apiKeys.update("key_1", { expectedVersion: 1, name: "x" });
    else await client.apiKeys.revoke("key_1", { expectedVersion: 1 });

    expect(sent()[0]!.headers["idempotency-key"]).toMatch(UUID);
    await done();
  });

  test("sends no Idempotency-Key on a GET", async () => {
    const { pool, client, sent, done } = mockGateway();
    pool
      .intercept({ path: "/v1/account/api-keys", method: "GET" })
      .reply(200, { object: "list", data: [], has_more: false, next_cursor: null }, { headers: JSON_HEADERS });

    await client.apiKeys.list();

    expect(sent()[0]!.headers).not.toHaveProperty("idempotency-key");
    await done();
  });

  test("rejects a caller key with a control character before sending anything", async () => {
    const { client, sent, done } = mockGateway();

    await expect(client.apiKeys.create({ name: "ci" }, { idempotencyKey: "bad\nkey" })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(sent()).toHaveLength(0);
    await done();
  });

  test("reports a replayed answer through withResponse", async () => {
    const { pool, client, done } = mockGateway();
    pool.intercept(CREATE).reply(201, created, { headers: { ...JSON_HEADERS, "idempotent-replayed": "true" } });

    const { response } = await client.apiKeys.create({ name: "ci" }, { idempotencyKey: "k-1" }).withResponse();

    expect(response).toEqual({ status: 201, requestId: undefined, replayed: true, idempotencyKey: "k-1", attempts: 1 });
    await done();
  });
});
