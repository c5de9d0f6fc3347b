/**
 * Extension `bulk_rotation` over real HTTP (on SQLite and, in the postgres project, PostgreSQL):
 * the dry run, the pinned rotation, what a retry does (never a second rotation), concurrent change,
 * the bound, and a crash half-way (PostgreSQL: the unit of work's connection killed while it waits
 * on a key's row).
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { BulkRotation, REPLAYED_HEADER, type ApiKeyWithSecret, type AuditEvent, type ListPage } from "@gateway-keys/contract";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError, respond, useGateway, type WireResponse } from "./helpers";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;
useGateway(
  (started, client) => {
    gateway = started;
    account = client;
  },
  // Use figures reach the key record at each flush: a short one, so a dry run sees them soon.
  { rateLimit: { ratePerSecond: 100_000, burst: 100_000 }, secretUse: { flushIntervalMs: 200 } },
);

const bulk = (body: unknown, idempotencyKey = randomUUID(), provisioningKey = gateway.provisioningKey) =>
  call<BulkRotation>(gateway.baseUrl, "POST", "/v1/account/api-keys/bulk-rotate", { bearer: provisioningKey, body, idempotencyKey });

/** A parsed 200 answer. */
function answer(response: WireResponse<BulkRotation>): BulkRotation {
  expect({ status: response.status, text: response.status === 200 ? "" : response.text }).toEqual({ status: 200, text: "" });
  return BulkRotation.parse(response.body);
}

/** Keys with a team label of their own (a fresh team per test, so tests do not see each other's keys). */
async function team(size: number, extra: Record<string, string> = {}): Promise<{ label: string; keys: ApiKeyWithSecret[] }> {
  const name = `t${randomUUID().slice(0, 8)}`;
  const keys = await Promise.all(Array.from({ length: size }, (_, i) => gateway.createRegularKey({ name: `${name}-${i}`, labels: { team: name, ...extra } })));
  return { label: `team=${name}`, keys: keys.sort((a, b) => (a.keyId < b.keyId ? -1 : 1)) };
}

const pinsOf = (plan: BulkRotation) => Object.fromEntries(plan.keys.map((item) => [item.keyId, item.key!.version]));
const versionOf = async (keyId: string) => (await account.get(keyId)).body.version as number;
const rotateEvents = async (keyId: string) =>
  (await call<ListPage<AuditEvent>>(gateway.baseUrl, "GET", `/v1/account/audit-events?keyId=${keyId}&action=rotate`, { bearer: gateway.provisioningKey })).body.data;

test("is advertised by GET /v1/startups", async () => {
  const info = await call(gateway.baseUrl, "GET", "/v1/startups");
  expect(info.body.extensions).toContain("bulk_rotation");
});

test("a dry run lists the selected keys with their version and use, leaves out revoked keys and other owners', and changes nothing", async () => {
  const { label, keys } = await team(3);
  expect((await respond(gateway, keys[0]!.secret)).status).toBe(200);
  const revoked = await gateway.createRegularKey({ name: "revoked", labels: { team: label.slice(5) } });
  expect((await account.revoke(revoked.keyId, { expectedVersion: 1 })).status).toBe(200);
  const otherKey = await gateway.newProvisioningKey("another-owner");
  await gateway.createRegularKey({ name: "theirs", labels: { team: label.slice(5) } }, { provisioningKey: otherKey });

  const plan = answer(await bulk({ label: [label], dryRun: true, gracePeriodSeconds: 600 }));
  expect(plan).toMatchObject({ object: "bulk_rotation", dryRun: true, label: [label], gracePeriodSeconds: 600, retireWhenIdleSeconds: null });
  expect(plan.keys.map((item) => [item.keyId, item.outcome, item.key?.version, item.secret])).toEqual(keys.map((key) => [key.keyId, "planned", 1, null]));
  expect(plan.keys[0]!.key!.lastUsedAt).not.toBeNull();
  expect(plan.keys[1]!.key!.lastUsedAt).toBeNull();
  for (const key of keys) expect(await versionOf(key.keyId)).toBe(1);
  for (const key of keys) expect((await respond(gateway, key.secret)).status).toBe(200);
  // A selector of two labels needs both.
  expect(answer(await bulk({ label: [label, "env=prod"], dryRun: true })).keys).toEqual([]);
});

test("a dry run names each key's clients and warns where rotating would cut off a previous secret still in use; the rotation carries the terms", async () => {
  const { label, keys } = await team(2);
  const [busy, quiet] = keys as [ApiKeyWithSecret, ApiKeyWithSecret];
  const rotated = await account.rotate(busy.keyId, { expectedVersion: 1, gracePeriodSeconds: 3600 });
  expect(rotated.status).toBe(200);
  const asClient = (secret: string, userAgent: string) =>
    call(gateway.baseUrl, "POST", "/v1/responses", { bearer: secret, body: { model: "echo-1", input: "hi" }, headers: { "user-agent": userAgent } });
  expect((await asClient(busy.secret, "legacy-worker/1.0")).status).toBe(200);
  expect((await asClient(rotated.body.secret, "api-server/3.2")).status).toBe(200);
  expect((await asClient(quiet.secret, "api-server/3.2")).status).toBe(200);

  let plan: BulkRotation | undefined;
  for (let tries = 0; tries < 50; tries++) {
    plan = answer(await bulk({ label: [label], dryRun: true }));
    if (plan.keys.every((item) => (item.key!.currentSecret?.requestsSinceRotation ?? 0) > 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const busyItem = plan!.keys.find((item) => item.keyId === busy.keyId)!;
  const quietItem = plan!.keys.find((item) => item.keyId === quiet.keyId)!;
  expect(busyItem.endsPreviousSecretInUse).toBe(true);
  expect(busyItem.key!.previousSecret!.clients.map((client) => client.userAgent)).toContain("legacy-worker/1.0");
  expect(busyItem.key!.currentSecret!.clients.map((client) => client.userAgent)).toEqual(["api-server/3.2"]);
  expect(quietItem.endsPreviousSecretInUse).toBe(false);
  expect(quietItem.key!.currentSecret!.clients.map((client) => client.userAgent)).toEqual(["api-server/3.2"]);

  const done = answer(await bulk({ label: [label], expectedVersions: pinsOf(plan!), gracePeriodSeconds: 600, retireWhenIdleSeconds: 60, inUseWarningSeconds: 120 }));
  for (const item of done.keys) {
    expect(item.outcome).toBe("rotated");
    expect(item.key!.previousSecret).toMatchObject({ retireWhenIdleSeconds: 60, retiredAt: null });
    expect(Date.parse(item.key!.previousSecret!.expiresAt) - Date.parse(item.key!.previousSecret!.inUseWarningAt!)).toBe(120_000);
  }
  // The busy key's old previous secret (legacy-worker's) was replaced, so it stopped now.
  expect((await respond(gateway, busy.secret)).status).toBe(401);
  expect((await respond(gateway, rotated.body.secret)).status).toBe(200);
});

test("rotates every pinned key once with one grace: new secrets work, old ones until the grace ends, each with its rotate audit event tied to the request", async () => {
  const { label, keys } = await team(3);
  const plan = answer(await bulk({ label: [label], dryRun: true }));
  const idempotencyKey = randomUUID();
  const done = answer(await bulk({ label: [label], expectedVersions: pinsOf(plan), gracePeriodSeconds: 3600 }, idempotencyKey));
  expect(done.dryRun).toBe(false);
  expect(done.keys.map((item) => [item.keyId, item.outcome, item.expectedVersion, item.key?.version])).toEqual(keys.map((key) => [key.keyId, "rotated", 1, 2]));
  for (const [i, item] of done.keys.entries()) {
    expect(item.secret).toMatch(/^gwk_/);
    expect(item.key!.hint).not.toBe(keys[i]!.hint);
    expect(Date.parse(item.key!.previousSecretExpiresAt!) - Date.parse(done.ranAt)).toBe(3_600_000);
    expect((await respond(gateway, item.secret!)).status).toBe(200);
    expect((await respond(gateway, keys[i]!.secret)).status).toBe(200);
    const events = await rotateEvents(item.keyId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: "rotate", versionBefore: 1, versionAfter: 2, idempotencyKey, requestId: done.requestId });
  }
  // Without a grace, each old secret stops at once.
  const plain = await team(1);
  const now = answer(await bulk({ label: [plain.label], expectedVersions: { [plain.keys[0]!.keyId]: 1 } }));
  expect(now.keys[0]!.key!.previousSecretExpiresAt).toBeNull();
  expectError(await respond(gateway, plain.keys[0]!.secret), 401, "invalid_credentials");
});

test("a retry with the same Idempotency-Key replays the answer and its secrets, even with the versions re-read, and rotates nothing", async () => {
  const { label, keys } = await team(2);
  const plan = answer(await bulk({ label: [label], dryRun: true }));
  const idempotencyKey = randomUUID();
  const first = answer(await bulk({ label: [label], expectedVersions: pinsOf(plan), gracePeriodSeconds: 60 }, idempotencyKey));
  const again = await bulk({ label: [label], expectedVersions: pinsOf(plan), gracePeriodSeconds: 60 }, idempotencyKey);
  expect(again.headers.get(REPLAYED_HEADER)).toBe("true");
  expect(answer(again)).toEqual(first);
  // A retrying operator re-reads the keys (their versions moved) and pins those: still the same operation.
  const replanned = answer(await bulk({ label: [label], dryRun: true }));
  expect(Object.values(pinsOf(replanned))).toEqual([2, 2]);
  const third = await bulk({ label: [label], expectedVersions: pinsOf(replanned), gracePeriodSeconds: 60 }, idempotencyKey);
  expect(third.headers.get(REPLAYED_HEADER)).toBe("true");
  expect(answer(third).keys.map((item) => item.secret)).toEqual(first.keys.map((item) => item.secret));
  for (const key of keys) {
    expect(await versionOf(key.keyId)).toBe(2);
    expect(await rotateEvents(key.keyId)).toHaveLength(1);
  }
  // Other terms are another operation: refused under that key, nothing rotated.
  expectError(await bulk({ label: [label], expectedVersions: pinsOf(replanned), gracePeriodSeconds: 120 }, idempotencyKey), 422, "idempotency_key_reused");
  for (const key of keys) expect(await versionOf(key.keyId)).toBe(2);
});

test("the same pins under a new Idempotency-Key rotate nothing: every key is a conflict", async () => {
  const { label, keys } = await team(2);
  const pins = pinsOf(answer(await bulk({ label: [label], dryRun: true })));
  answer(await bulk({ label: [label], expectedVersions: pins }));
  const second = answer(await bulk({ label: [label], expectedVersions: pins }));
  expect(second.keys.map((item) => [item.outcome, item.expectedVersion, item.key!.version, item.secret])).toEqual([
    ["conflict", 1, 2, null],
    ["conflict", 1, 2, null],
  ]);
  for (const key of keys) expect(await rotateEvents(key.keyId)).toHaveLength(1);
});

test("concurrent runs of one plan under different Idempotency-Keys rotate each key once", async () => {
  const { label, keys } = await team(5);
  const pins = pinsOf(answer(await bulk({ label: [label], dryRun: true })));
  const runs = (await Promise.all(Array.from({ length: 3 }, () => bulk({ label: [label], expectedVersions: pins, gracePeriodSeconds: 60 })))).map(answer);
  for (const key of keys) {
    const outcomes = runs.map((run) => run.keys.find((item) => item.keyId === key.keyId)!.outcome).sort();
    expect(outcomes).toEqual(["conflict", "conflict", "rotated"]);
    expect(await versionOf(key.keyId)).toBe(2);
    expect(await rotateEvents(key.keyId)).toHaveLength(1);
  }
});

test("a key changed, revoked, relabelled or made since the dry run is reported and left as it is; the others rotate", async () => {
  const { label, keys } = await team(5);
  const [changed, revoked, relabelled, untouched, unpinned] = keys as [ApiKeyWithSecret, ApiKeyWithSecret, ApiKeyWithSecret, ApiKeyWithSecret, ApiKeyWithSecret];
  const pins = pinsOf(answer(await bulk({ label: [label], dryRun: true })));
  delete pins[unpinned.keyId];
  expect((await account.patch(changed.keyId, { expectedVersion: 1, name: "renamed meanwhile" })).status).toBe(200);
  expect((await account.revoke(revoked.keyId, { expectedVersion: 1 })).status).toBe(200);
  expect((await account.patch(relabelled.keyId, { expectedVersion: 1, labels: { team: "elsewhere" } })).status).toBe(200);
  const stranger = await gateway.createRegularKey({ name: "not in the team" });
  pins[stranger.keyId] = 1;
  pins["key_doesnotexist000000000"] = 1;

  const done = answer(await bulk({ label: [label], expectedVersions: pins }));
  const outcome = (keyId: string) => done.keys.find((item) => item.keyId === keyId);
  expect(outcome(changed.keyId)).toMatchObject({ outcome: "conflict", expectedVersion: 1, secret: null, key: { version: 2, name: "renamed meanwhile" } });
  expect(outcome(revoked.keyId)).toMatchObject({ outcome: "revoked", secret: null, key: { state: "revoked" } });
  expect(outcome(relabelled.keyId)).toMatchObject({ outcome: "conflict", key: { labels: { team: "elsewhere" } } });
  expect(outcome(untouched.keyId)).toMatchObject({ outcome: "rotated", key: { version: 2 } });
  expect(outcome(unpinned.keyId)).toMatchObject({ outcome: "not_in_plan", expectedVersion: null, secret: null, key: { version: 1 } });
  expect(outcome(stranger.keyId)).toMatchObject({ outcome: "not_selected", expectedVersion: 1, secret: null, key: { version: 1 } });
  expect(outcome("key_doesnotexist000000000")).toMatchObject({ outcome: "not_found", key: null, secret: null });
  expect((await account.get(changed.keyId)).body).toMatchObject({ version: 2, name: "renamed meanwhile", hint: changed.hint });
  expect((await respond(gateway, unpinned.secret)).status).toBe(200);
  expect((await respond(gateway, stranger.secret)).status).toBe(200);
  expect(await rotateEvents(changed.keyId)).toHaveLength(0);
});

test("more keys than the bound are refused with 400 naming label and the count, dry run or not, and nothing changes", async () => {
  const { label, keys } = await team(101);
  const refused = expectError(await bulk({ label: [label], dryRun: true }), 400, "validation_failed");
  expect(refused.param).toBe("label");
  expect(refused.message).toContain("selects 101 keys");
  expect(refused.message).toContain("at most 100");
  const pins = Object.fromEntries(keys.slice(0, 100).map((key) => [key.keyId, 1]));
  expectError(await bulk({ label: [label], expectedVersions: pins }), 400, "validation_failed");
  const tooMany = expectError(await bulk({ label: [label], expectedVersions: { ...pins, [keys[100]!.keyId]: 1 } }), 400, "validation_failed");
  expect(tooMany.param).toBe("expectedVersions");
  for (const key of keys.slice(0, 5)) expect(await versionOf(key.keyId)).toBe(1);
});

test("bad bodies are refused with 400 naming the field, and need keys:write", async () => {
  const { label, keys } = await team(1);
  const field = async (body: unknown) => expectError(await bulk(body), 400, "validation_failed").param;
  expect(await field({ dryRun: true })).toBe("label");
  expect(await field({ label: [], dryRun: true })).toBe("label");
  expect(await field({ label: [label] })).toBe("expectedVersions");
  expect(await field({ label: [label], dryRun: true, retireWhenIdleSeconds: 60 })).toBe("retireWhenIdleSeconds");
  expect(await field({ label: [label], dryRun: true, gracePeriodSeconds: 60, inUseWarningSeconds: 60 })).toBe("inUseWarningSeconds");
  expect(await field({ label: [label], dryRun: true, expectedVersions: { notakey: 1 } })).toMatch(/^expectedVersions/);
  expect(await field({ label: [label], dryRun: true, force: true })).toBeDefined();
  expectError(await call(gateway.baseUrl, "POST", "/v1/account/api-keys/bulk-rotate", { bearer: gateway.provisioningKey, body: { label: [label], dryRun: true } }), 400, "missing_idempotency_key");
  const reader = await gateway.newProvisioningKey(gateway.ownerId, ["keys:read"]);
  expectError(await bulk({ label: [label], dryRun: true }, randomUUID(), reader), 403, "missing_scope");
  expectError(await bulk({ label: [label], dryRun: true }, randomUUID(), keys[0]!.secret), 403, "wrong_key_kind");
  expect(await versionOf(keys[0]!.keyId)).toBe(1);
});

const onPostgres = process.env.GATEWAY_TEST_STORE === "postgres";
(onPostgres ? test : test.skip)("PostgreSQL: a rotation cut off half-way (its connection killed while it waits on a key) leaves every key as it was; the retry rotates each once", async () => {
  const { label, keys } = await team(6);
  const pins = pinsOf(answer(await bulk({ label: [label], dryRun: true })));
  const admin = new pg.Client({ connectionString: gateway.databaseUrl! });
  const observer = new pg.Client({ connectionString: gateway.databaseUrl! });
  await Promise.all([admin.connect(), observer.connect()]);
  try {
    const held = keys[3]!.keyId;
    await admin.query("BEGIN");
    await admin.query("SELECT id FROM api_keys WHERE id = $1 FOR UPDATE", [held]);
    const idempotencyKey = randomUUID();
    const cutOff = bulk({ label: [label], expectedVersions: pins, gracePeriodSeconds: 60 }, idempotencyKey);
    // The unit of work has rotated the keys before the held one (key id order) and waits on it.
    let waiting: number | undefined;
    for (let tries = 0; tries < 200 && waiting === undefined; tries++) {
      const { rows } = await observer.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1",
        [(admin as unknown as { processID: number }).processID],
      );
      waiting = rows[0]?.pid;
      if (waiting === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(waiting).toBeDefined();
    const versions = async () => (await observer.query<{ version: number }>("SELECT version FROM api_keys WHERE id = ANY($1) ORDER BY id", [keys.map((key) => key.keyId)])).rows.map((row) => Number(row.version));
    expect(await versions()).toEqual([1, 1, 1, 1, 1, 1]);
    await observer.query("SELECT pg_terminate_backend($1)", [waiting]);
    // The gateway may retry the unit of work on a new connection (it then waits again) or answer 503: either way nothing committed yet.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await versions()).toEqual([1, 1, 1, 1, 1, 1]);
    await admin.query("ROLLBACK");
    const first = await cutOff;
    expect([200, 503]).toContain(first.status);
    const settled = first.status === 200 ? first : await bulk({ label: [label], expectedVersions: pins, gracePeriodSeconds: 60 }, idempotencyKey);
    expect(answer(settled).keys.map((item) => item.outcome)).toEqual(Array(6).fill("rotated"));
    // And a retry after that replays.
    const replay = await bulk({ label: [label], expectedVersions: pins, gracePeriodSeconds: 60 }, idempotencyKey);
    expect(replay.headers.get(REPLAYED_HEADER)).toBe("true");
    expect(await versions()).toEqual([2, 2, 2, 2, 2, 2]);
    for (const key of keys) expect(await rotateEvents(key.keyId)).toHaveLength(1);
  } finally {
    await admin.end();
    await observer.end();
  }
});
