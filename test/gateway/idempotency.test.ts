/** Idempotency-Key on account mutations: replay, reuse, in-flight, scope, expiry, at-rest encryption. */
import { connect } from "node:net";
import { createTestClock, startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError, respond, useGateway } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;

useGateway((started, client) => {
  gateway = started;
  account = client;
});

const namedKeys = async (name: string) => (await account.listAll()).filter((key) => key.name === name);

describe("replay", () => {
  test("the same key and body replays the create: same record, same secret, Idempotent-Replayed: true", async () => {
    const first = await account.create({ name: "replayed create" }, "create-1");
    const second = await account.create({ name: "replayed create" }, "create-1");
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(await namedKeys("replayed create")).toHaveLength(1);
  });

  test("a retry through a proxy that adds a trailing slash replays the create instead of making a second key", async () => {
    const body = { name: "slashed create" };
    const first = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", { bearer: gateway.provisioningKey, idempotencyKey: "slash-1", body });
    const retried = await call(gateway.baseUrl, "POST", "/v1/account/api-keys/", { bearer: gateway.provisioningKey, idempotencyKey: "slash-1", body });
    expect(first.status).toBe(201);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.body).toEqual(first.body);
    expect(await namedKeys("slashed create")).toHaveLength(1);
  });

  test("a rotate retried with its key id percent-encoded replays the same new secret", async () => {
    const key = (await account.create({ name: "encoded rotate" })).body;
    const first = await account.rotate(key.keyId, { expectedVersion: 1 }, "rotate-encoded");
    const encodedId = key.keyId.replace("_", "%5F");
    const retried = await call(gateway.baseUrl, "POST", `/v1/account/api-keys/${encodedId}/rotate/`, {
      bearer: gateway.provisioningKey,
      idempotencyKey: "rotate-encoded",
      body: { expectedVersion: 1 },
    });
    expect(first.status).toBe(200);
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.body.secret).toBe(first.body.secret);
    expect((await respond(gateway, first.body.secret)).status).toBe(200);
  });

  test("a body differing only in key order and whitespace counts as the same request", async () => {
    const first = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "create-order",
      rawBody: '{"name":"ordered","loggingPolicy":{"retentionDays":3,"storeRequest":true}}',
    });
    const second = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", {
      bearer: gateway.provisioningKey,
      idempotencyKey: "create-order",
      rawBody: '{ "loggingPolicy": { "storeRequest": true, "retentionDays": 3 }, "name": "ordered" }',
    });
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.keyId).toBe(first.body.keyId);
  });

  test("a create that leaves spendPolicy out and one that sends it null are the same request: the second replays", async () => {
    const first = await account.create({ name: "no cap" }, "create-null-policy");
    const second = await account.create({ name: "no cap", spendPolicy: null }, "create-null-policy");
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.keyId).toBe(first.body.keyId);
    expect(await namedKeys("no cap")).toHaveLength(1);
  });

  test("a PATCH that leaves spendPolicy out and one that sends it null are different changes", async () => {
    const created = await account.create({ name: "capped", spendPolicy: { limitUnits: "5" } });
    await account.patch(created.body.keyId, { expectedVersion: 1, name: "still capped" }, "patch-null-policy");
    const reused = await account.patch(created.body.keyId, { expectedVersion: 1, name: "still capped", spendPolicy: null }, "patch-null-policy");
    expectError(reused, 422, "idempotency_key_reused");
    expect((await account.get(created.body.keyId)).body.spendPolicy).toEqual({ limitUnits: "5", currency: "unit", resetPeriod: "never" });
  });

  test("a replayed rotate returns the same new secret, which is the one that works", async () => {
    const created = await account.create({ name: "rotate replay" });
    const first = await account.rotate(created.body.keyId, { expectedVersion: 1 }, "rotate-1");
    const second = await account.rotate(created.body.keyId, { expectedVersion: 1 }, "rotate-1");
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body.secret).toBe(first.body.secret);
    expect((await account.get(created.body.keyId)).body.version).toBe(2);
    expect((await respond(gateway, first.body.secret)).status).toBe(200);
  });

  test("a replayed PATCH does not apply the change a second time", async () => {
    const created = await account.create({ name: "patch replay" });
    await account.patch(created.body.keyId, { expectedVersion: 1, name: "patched once" }, "patch-1");
    const replay = await account.patch(created.body.keyId, { expectedVersion: 1, name: "patched once" }, "patch-1");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await account.get(created.body.keyId)).body.version).toBe(2);
  });
});

describe("reuse and scope", () => {
  test("the same key with a different body answers 422 idempotency_key_reused and creates nothing", async () => {
    await account.create({ name: "reuse original" }, "reuse-1");
    const reused = await account.create({ name: "reuse different" }, "reuse-1");
    expect(expectError(reused, 422, "idempotency_key_reused").param).toBe("Idempotency-Key");
    expect(await namedKeys("reuse different")).toHaveLength(0);
  });

  test("the same key on another path is a separate operation", async () => {
    const one = await account.create({ name: "scope one" });
    const two = await account.create({ name: "scope two" });
    const first = await account.patch(one.body.keyId, { expectedVersion: 1, state: "disabled" }, "scoped-by-path");
    const second = await account.patch(two.body.keyId, { expectedVersion: 1, state: "disabled" }, "scoped-by-path");
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect([first.body.keyId, second.body.keyId]).toEqual([one.body.keyId, two.body.keyId]);
  });

  test("the same key used by another owner is a separate operation", async () => {
    const otherKey = await gateway.newProvisioningKey("idempotency-other-owner");
    const mine = await account.create({ name: "shared idem key" }, "shared-between-owners");
    const theirs = await accountClient(gateway, otherKey).create({ name: "shared idem key" }, "shared-between-owners");
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body.ownerId).toBe("idempotency-other-owner");
    expect(theirs.body.keyId).not.toBe(mine.body.keyId);
  });

  test("a mutation that failed leaves its key free, so a retry runs again", async () => {
    const created = await account.create({ name: "failed then retried" });
    const early = await account.patch(created.body.keyId, { expectedVersion: 2, name: "mine" }, "retry-after-failure");
    expectError(early, 409, "conflict");
    await account.patch(created.body.keyId, { expectedVersion: 1, name: "theirs" });
    const retried = await account.patch(created.body.keyId, { expectedVersion: 2, name: "mine" }, "retry-after-failure");
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(retried.body).toMatchObject({ name: "mine", version: 3 });
  });
});

describe("the header", () => {
  const mutations = [
    ["create", () => call(gateway.baseUrl, "POST", "/v1/account/api-keys", { bearer: gateway.provisioningKey, body: { name: "no header" } })],
    ["change", () => call(gateway.baseUrl, "PATCH", "/v1/account/api-keys/key_x", { bearer: gateway.provisioningKey, body: { expectedVersion: 1, name: "n" } })],
    ["rotate", () => call(gateway.baseUrl, "POST", "/v1/account/api-keys/key_x/rotate", { bearer: gateway.provisioningKey, body: { expectedVersion: 1 } })],
    ["revoke", () => call(gateway.baseUrl, "POST", "/v1/account/api-keys/key_x/revoke", { bearer: gateway.provisioningKey, body: { expectedVersion: 1 } })],
  ] as const;

  test.each(mutations)("%s without Idempotency-Key answers 400 missing_idempotency_key", async (_name, send) => {
    const before = await account.listAll();
    expect(expectError(await send(), 400, "missing_idempotency_key").param).toBe("Idempotency-Key");
    expect(await account.listAll()).toEqual(before);
  });

  test.each([
    ["longer than 255 characters", "k".repeat(256)],
    ["with a space", "two words"],
  ])("an Idempotency-Key %s answers 400 validation_failed naming the header", async (_what, value) => {
    const answer = await account.create({ name: "bad header" }, value);
    expect(expectError(answer, 400, "validation_failed").param).toBe("Idempotency-Key");
    expect(await namedKeys("bad header")).toHaveLength(0);
  });
});

describe("in flight and concurrency", () => {
  test("of 20 concurrent duplicates exactly one key is created; each other one waits for it and replays it", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => account.create({ name: "duplicated" }, "concurrent-dup")));
    expect(await namedKeys("duplicated")).toHaveLength(1);
    // Claim, create and record are one unit of work: a duplicate never sees a half-done operation.
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(201));
    expect(answers.filter((answer) => answer.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    for (const answer of answers) expect(answer.body).toEqual(answers[0]!.body);
  });

  test("a create whose connection dropped after the commit, retried with the same key, leaves exactly one key", async () => {
    const body = JSON.stringify({ name: "dropped connection" });
    const port = new URL(gateway.baseUrl).port;
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.on("error", () => {});
    socket.write(
      `POST /v1/account/api-keys HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${gateway.provisioningKey}\r\n` +
        `Content-Type: application/json\r\nIdempotency-Key: dropped-1\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    // Wait until the server has committed (the key is visible to another reader), then drop the
    // connection without reading the reply: the client does not know whether it worked.
    for (let attempt = 0; (await namedKeys("dropped connection")).length === 0; attempt++) {
      if (attempt > 200) throw new Error("the server never committed the create");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    socket.destroy();
    const retry = await account.create({ name: "dropped connection" }, "dropped-1");
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    const keys = await namedKeys("dropped connection");
    expect(keys).toHaveLength(1);
    expect(retry.body.keyId).toBe(keys[0]!.keyId);
    expect((await respond(gateway, retry.body.secret)).status).toBe(200);
  });
});

describe("storage of replies", () => {
  test("the stored reply of a create does not hold the secret in plaintext anywhere in the database", async () => {
    const created = await account.create({ name: "encrypted at rest" }, "at-rest-1");
    expect((await account.create({ name: "encrypted at rest" }, "at-rest-1")).body.secret).toBe(created.body.secret);
    const contents = await gateway.storedBytes();
    // The key id is stored in plaintext, so finding it proves we are reading the right bytes.
    expect(contents.includes(created.body.keyId)).toBe(true);
    expect(contents.includes(created.body.secret)).toBe(false);
    expect(contents.includes(created.body.secret.slice(4, 36))).toBe(false);
  });

  test("replies expire after the configured lifetime: the same key then runs a new operation", async () => {
    const clock = createTestClock();
    const timed = await startTestGateway({ clock: clock.now, idempotencyTtlMs: 60 * 60 * 1000, storage: "memory" });
    try {
      const timedAccount = accountClient(timed);
      const first = await timedAccount.create({ name: "expiring" }, "expiring-1");
      clock.advance(60 * 60 * 1000 - 1);
      expect((await timedAccount.create({ name: "expiring" }, "expiring-1")).headers.get("idempotent-replayed")).toBe("true");
      clock.advance(1);
      const after = await timedAccount.create({ name: "expiring" }, "expiring-1");
      expect(after.headers.get("idempotent-replayed")).toBeNull();
      expect(after.body.keyId).not.toBe(first.body.keyId);
    } finally {
      await timed.stop();
    }
  });

  test("maintenance purges expired replies from the store", async () => {
    const clock = createTestClock();
    const timed = await startTestGateway({ clock: clock.now, idempotencyTtlMs: 1000, storage: "memory" });
    try {
      await accountClient(timed).create({ name: "purged" }, "purge-1");
      expect((await timed.gateway.app.gateway.runMaintenance()).idempotencyKeys).toBe(0);
      clock.advance(1000);
      expect((await timed.gateway.app.gateway.runMaintenance()).idempotencyKeys).toBe(1);
    } finally {
      await timed.stop();
    }
  });
});
