/**
 * The key policies beside the spend limit, on this file's store with an injected clock: expiry
 * (401 key_expired, shown in list and usage, extended by PATCH), labels (list filters, usage
 * groups), and how bad policies are refused — by name, changing nothing.
 */
import { createTestClock, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call, expectError, respond, useGateway, type accountClient } from "./helpers";

const clock = createTestClock(Date.UTC(2030, 0, 1));
let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;
useGateway(
  (started, client) => {
    gateway = started;
    account = client;
  },
  { clock: clock.now, ownerId: "policies-owner" },
);

const HOUR = 3_600_000;

describe("expiry", () => {
  test("a key works until its expiresAt, then gets 401 key_expired; list and usage show it expired; PATCH extends it", async () => {
    clock.set(Date.UTC(2030, 0, 1));
    const key = await gateway.createRegularKey({ name: "expiring", expiresAt: "2030-01-01T02:00:00+01:00" });
    expect(key).toMatchObject({ expiresAt: "2030-01-01T01:00:00.000Z", expired: false });
    expect((await respond(gateway, key.secret)).status).toBe(200);

    clock.set(Date.UTC(2030, 0, 1, 1) - 1);
    expect((await respond(gateway, key.secret)).status).toBe(200);
    clock.set(Date.UTC(2030, 0, 1, 1));
    const refused = expectError(await respond(gateway, key.secret), 401, "key_expired");
    expect(refused.message).toContain("2030-01-01T01:00:00.000Z");
    expect((await account.get(key.keyId)).body).toMatchObject({ expired: true, state: "active" });
    expect((await account.listAll()).find((listed) => listed.keyId === key.keyId)).toMatchObject({ expired: true });
    const line = (await account.usage()).body.byKey.find((entry: { keyId: string }) => entry.keyId === key.keyId);
    expect(line).toMatchObject({ expired: true, requests: 2 });

    const extended = await account.patch(key.keyId, { expectedVersion: 1, expiresAt: "2030-01-02T00:00:00Z" });
    expect(extended.body).toMatchObject({ expiresAt: "2030-01-02T00:00:00.000Z", expired: false, version: 2 });
    expect((await respond(gateway, key.secret)).status).toBe(200);
    // null removes the expiry.
    expect((await account.patch(key.keyId, { expectedVersion: 2, expiresAt: null })).body).toMatchObject({ expiresAt: null, expired: false });
  });

  test("an expiresAt that is not in the future is refused by name, on create and on PATCH, and changes nothing", async () => {
    clock.set(Date.UTC(2030, 1, 1));
    const before = (await account.listAll()).length;
    const created = await account.create({ name: "already over", expiresAt: "2030-02-01T00:00:00Z" });
    expect(expectError(created, 400, "validation_failed")).toMatchObject({ param: "expiresAt" });
    expect((await account.listAll()).length).toBe(before);

    const key = await gateway.createRegularKey({ name: "to extend", expiresAt: new Date(Date.UTC(2030, 1, 1) + HOUR).toISOString() });
    const patched = await account.patch(key.keyId, { expectedVersion: 1, expiresAt: "2030-01-31T00:00:00Z", name: "renamed" });
    expect(expectError(patched, 400, "validation_failed").message).toMatch(/expiresAt: must be in the future/);
    expect((await account.get(key.keyId)).body).toMatchObject({ version: 1, name: "to extend", expiresAt: "2030-02-01T01:00:00.000Z" });

    const notADate = await account.create({ name: "bad date", expiresAt: "next tuesday" });
    expect(expectError(notADate, 400, "validation_failed").param).toBe("expiresAt");
  });
});

describe("labels", () => {
  test("list filters by label value and by label name, every selector matching", async () => {
    const search = await gateway.createRegularKey({ name: "search prod", labels: { team: "search", env: "prod" } });
    const searchDev = await gateway.createRegularKey({ name: "search dev", labels: { team: "search", env: "dev" } });
    const billing = await gateway.createRegularKey({ name: "billing", labels: { team: "billing" } });
    const ids = async (query: string) => {
      const page = await account.list(query);
      expect(page.status).toBe(200);
      return page.body.data.map((key) => key.keyId);
    };
    expect(await ids("?label=team%3Dsearch")).toEqual([search.keyId, searchDev.keyId]);
    expect(await ids("?label=team%3Dsearch&label=env%3Dprod")).toEqual([search.keyId]);
    expect(await ids("?label=env")).toEqual([search.keyId, searchDev.keyId]);
    expect(await ids("?label=team%3Dbilling")).toEqual([billing.keyId]);
    expect(await ids("?label=team%3Dnobody")).toEqual([]);
    // Pages of a filtered list follow on with the same filter.
    const first = await account.list("?label=team%3Dsearch&limit=1");
    expect(first.body).toMatchObject({ has_more: true, data: [{ keyId: search.keyId }] });
    const second = await account.list(`?label=team%3Dsearch&limit=1&after=${first.body.next_cursor}`);
    expect(second.body.data.map((key) => key.keyId)).toEqual([searchDev.keyId]);
  });

  test("the usage summary groups spend by each label's value; PATCH replaces the labels whole", async () => {
    const gatewayOwnerKeys = await Promise.all([
      gateway.createRegularKey({ name: "a", labels: { project: "alpha", tier: "gold" } }),
      gateway.createRegularKey({ name: "b", labels: { project: "alpha" } }),
      gateway.createRegularKey({ name: "c", labels: { project: "beta" } }),
    ]);
    const body = { model: "echo-1", input: "hello", max_output_tokens: 1 }; // 0.003 each
    for (const key of gatewayOwnerKeys) expect((await respond(gateway, key.secret, body)).status).toBe(200);
    const summary = (await account.usage()).body;
    const group = (label: string, value: string) => summary.byLabel.find((line: { label: string; value: string }) => line.label === label && line.value === value);
    expect(group("project", "alpha")).toEqual({ label: "project", value: "alpha", requests: 2, spentUnits: "0.006" });
    expect(group("project", "beta")).toEqual({ label: "project", value: "beta", requests: 1, spentUnits: "0.003" });
    expect(group("tier", "gold")).toEqual({ label: "tier", value: "gold", requests: 1, spentUnits: "0.003" });
    expect(summary.byKey.find((line: { keyId: string }) => line.keyId === gatewayOwnerKeys[0]!.keyId).labels).toEqual({ project: "alpha", tier: "gold" });

    const relabelled = await account.patch(gatewayOwnerKeys[1]!.keyId, { expectedVersion: 1, labels: { project: "beta" } });
    expect(relabelled.body.labels).toEqual({ project: "beta" });
  });

  test("labels are bounded: a name outside the pattern, a long value, or more than 32 are refused by name", async () => {
    const badName = await account.create({ name: "x", labels: { "Team Name": "a" } });
    expect(expectError(badName, 400, "validation_failed").message).toContain("labels");
    const longValue = await account.create({ name: "x", labels: { team: "v".repeat(257) } });
    expect(expectError(longValue, 400, "validation_failed").param).toBe("labels.team");
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`l${i}`, "v"]));
    expect(expectError(await account.create({ name: "x", labels: many }), 400, "validation_failed").message).toContain("at most 32 labels");
    const selector = await call(gateway.baseUrl, "GET", "/v1/account/api-keys?label=", { bearer: gateway.provisioningKey });
    expect(expectError(selector, 400, "validation_failed").param).toMatch(/^label/);
  });
});

describe("rate limit policy as declared", () => {
  test("is stored and returned as sent; null removes it; {} and non-positive limits are refused by name", async () => {
    const key = await gateway.createRegularKey({ name: "limited", rateLimitPolicy: { requestsPerMinute: 60, maxConcurrentRequests: 4 } });
    expect(key.rateLimitPolicy).toEqual({ requestsPerMinute: 60, maxConcurrentRequests: 4 });
    expect((await account.patch(key.keyId, { expectedVersion: 1, rateLimitPolicy: null })).body.rateLimitPolicy).toBeNull();
    expect(expectError(await account.create({ name: "x", rateLimitPolicy: {} }), 400, "validation_failed").message).toContain("at least one of requestsPerMinute");
    expect(expectError(await account.create({ name: "x", rateLimitPolicy: { tokensPerMinute: 0 } }), 400, "validation_failed").param).toBe(
      "rateLimitPolicy.tokensPerMinute",
    );
    expect(expectError(await account.create({ name: "x", rateLimitPolicy: { requestsPerSecond: 1 } }), 400, "validation_failed").message).toContain(
      "requestsPerSecond",
    );
  });
});

describe("idempotent creates read as the contract reads them", () => {
  test("a replayed create with null policies is the same request as one that leaves them out", async () => {
    const first = await account.create({ name: "replayed" }, "replay-null-policies");
    expect(first.status).toBe(201);
    const replay = await account.create({ name: "replayed", spendPolicy: null, rateLimitPolicy: null, expiresAt: null, labels: {} }, "replay-null-policies");
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.keyId).toBe(first.body.keyId);
  });
});
