import { execFile } from "node:child_process";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { AuditEvent, AuditVerification, ListPage, WebhookDelivery, WebhookWithSecret, type ApiKey } from "@gateway-keys/contract";
import { GATEWAY_CLI } from "@gateway-keys/testkit/gateway-process";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { startTestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError, respond, useGateway } from "./helpers";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

let gateway: TestGateway;
let account: ReturnType<typeof accountClient>;
let receiver: WebhookReceiver;

useGateway(
  (started, client) => {
    gateway = started;
    account = client;
  },
  // Loopback targets allowed (the receiver is on 127.0.0.1); retries fast so a test sees six attempts.
  { webhooks: { allowPrivateTargets: true, pollIntervalMs: 25, retryBaseMs: 40, maxRetryDelayMs: 200, scanIntervalMs: 0, budgetRefreshMs: 50 } },
);

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

const auth = () => ({ bearer: gateway.provisioningKey });
const auditEvents = (query = "") => call<ListPage<AuditEvent>>(gateway.baseUrl, "GET", `/v1/account/audit-events${query}`, auth());
const verify = () => call<AuditVerification>(gateway.baseUrl, "GET", "/v1/account/audit-events/verify", auth());
const createWebhook = (body: unknown) => call<WebhookWithSecret>(gateway.baseUrl, "POST", "/v1/account/webhooks", { ...auth(), body, idempotencyKey: "auto" });

/** Runs SQL on the test gateway's database from outside the gateway, as a tamperer would. */
async function runSql(statements: string[]): Promise<void> {
  if (gateway.databaseUrl) {
    const client = new pg.Client({ connectionString: gateway.databaseUrl });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
    return;
  }
  const db = new DatabaseSync(gateway.dbPath!);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    for (const statement of statements) db.exec(statement);
  } finally {
    db.close();
  }
}

describe("audit trail", () => {
  test("create, PATCH, rotate and revoke each append one event naming the provisioning key, with versions and changed fields", async () => {
    const key = await gateway.createRegularKey({ name: "audited", labels: { team: "a" } });
    expect((await account.patch(key.keyId, { expectedVersion: 1, name: "audited 2", budgetAlertThresholds: [0.5, 1] })).status).toBe(200);
    expect((await account.rotate(key.keyId, { expectedVersion: 2 })).status).toBe(200);
    expect((await account.revoke(key.keyId, { expectedVersion: 3 })).status).toBe(200);

    const page = await auditEvents(`?keyId=${key.keyId}`);
    expect(page.status).toBe(200);
    const events = page.body.data.map((event) => AuditEvent.parse(event)).reverse();
    expect(events.map((event) => [event.action, event.versionBefore, event.versionAfter])).toEqual([
      ["create", null, 1],
      ["update", 1, 2],
      ["rotate", 2, 3],
      ["revoke", 3, 4],
    ]);
    const whoami = await call(gateway.baseUrl, "GET", "/v1/account/whoami", auth());
    for (const event of events) {
      expect(event.actor).toMatchObject({ kind: "provisioning_key", hint: whoami.body.hint });
      expect(event.idempotencyKey).toEqual(expect.any(String));
      expect(event.requestId).toEqual(expect.any(String));
    }
    expect(events[1]!.changes).toEqual({
      name: { old: "audited", new: "audited 2" },
      budgetAlertThresholds: { old: [], new: [0.5, 1] },
    });
    expect(Object.keys(events[2]!.changes).sort()).toEqual(["hint", "rotatedAt"]);
    expect(events[3]!.changes.state).toEqual({ old: "active", new: "revoked" });
    // Never a secret: not the key's, not the provisioning key's.
    expect(JSON.stringify(page.body)).not.toContain(key.secret);
    expect(JSON.stringify(page.body)).not.toContain(gateway.provisioningKey);
    expect((await verify()).body).toMatchObject({ valid: true, problem: null });
  });

  test("a refused change (stale version) leaves no event: no event without its change", async () => {
    const key = await gateway.createRegularKey({ name: "conflict" });
    const before = (await auditEvents(`?keyId=${key.keyId}`)).body.data.length;
    expect((await account.patch(key.keyId, { expectedVersion: 7, name: "nope" })).status).toBe(409);
    expect((await auditEvents(`?keyId=${key.keyId}`)).body.data).toHaveLength(before);
  });

  test("a change whose audit event cannot be written is not made: no change without its event", async () => {
    const owner = await gateway.newProvisioningKey("atomic-owner");
    const ownerAccount = accountClient(gateway, owner);
    const key = (await ownerAccount.create({ name: "atomic" })).body;
    // The owner's next event (seq 2) is taken underneath, so appending the PATCH's event fails.
    await runSql([
      `INSERT INTO audit_events (owner_id, seq, id, time, actor, action, key_id, webhook_id, version_before, version_after, changes, idempotency_key, request_id, prev_hash, hash)
       VALUES ('atomic-owner', 2, 'aud_blocker', 0, '{}', 'update', NULL, NULL, NULL, NULL, '{}', NULL, NULL, 'x', 'x')`,
    ]);
    const patched = await ownerAccount.patch(key.keyId, { expectedVersion: 1, name: "atomic 2", labels: { changed: "yes" } });
    expect(patched.status).toBeGreaterThanOrEqual(500);
    expect((await ownerAccount.get(key.keyId)).body).toMatchObject({ name: "atomic", version: 1, labels: {} });
    const events = (await call<ListPage<AuditEvent>>(gateway.baseUrl, "GET", `/v1/account/audit-events?keyId=${key.keyId}`, { bearer: owner })).body.data;
    expect(events.map((event) => event.action)).toEqual(["create"]);
  });

  test("filters by action and pages with a cursor, newest first", async () => {
    const first = await auditEvents("?action=create&limit=1");
    expect(first.body.data).toHaveLength(1);
    expect(first.body.has_more).toBe(true);
    const second = await auditEvents(`?action=create&limit=1&after=${encodeURIComponent(first.body.next_cursor!)}`);
    expect(second.body.data[0]!.seq).toBeLessThan(first.body.data[0]!.seq);
    expect(second.body.data[0]!.action).toBe("create");
    const bad = await auditEvents("?action=explode");
    expect(expectError(bad, 400, "validation_failed").param).toBe("action");
  });

  test("verify reports an audit row edited directly in the database", async () => {
    const key = await gateway.createRegularKey({ name: "tamper target" });
    const [event] = (await auditEvents(`?keyId=${key.keyId}`)).body.data;
    expect((await verify()).body.valid).toBe(true);
    const edit = `UPDATE audit_events SET changes = '{}' WHERE id = '${event!.id}'`;
    // The table refuses edits; a tamperer with the database's owner rights turns that off first.
    await expect(runSql([edit])).rejects.toThrow(/append-only/);
    await runSql(
      gateway.databaseUrl
        ? ["ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only", edit, "ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only"]
        : ["DROP TRIGGER audit_events_no_update", edit],
    );
    const verdict = AuditVerification.parse((await verify()).body);
    expect(verdict).toMatchObject({ valid: false, problem: "hash_mismatch", brokenEventId: event!.id, brokenAtSeq: event!.seq });
  });
});

describe("webhooks", () => {
  test("create shows a whsec_ secret once; a key change arrives signed, verified by the standardwebhooks library", async () => {
    const created = await createWebhook({ url: receiver.url, events: ["audit.create"], labelSelector: { team: "signed" } });
    expect(created.status).toBe(201);
    const webhook = WebhookWithSecret.strict().parse(created.body);
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await call(gateway.baseUrl, "GET", `/v1/account/webhooks/${webhook.webhookId}`, auth());
    expect(read.body.secret).toBeUndefined();
    expect(await gateway.storedBytes()).not.toContain(Buffer.from(webhook.secret));

    await gateway.createRegularKey({ name: "not matching", labels: { team: "other" } });
    const key = await gateway.createRegularKey({ name: "matching", labels: { team: "signed" } });
    const [delivery] = await receiver.waitFor((accepted) => accepted.some((d) => d.body.includes(key.keyId)));
    const verified = new StandardWebhook(webhook.secret).verify(delivery!.body, {
      "webhook-id": String(delivery!.headers["webhook-id"]),
      "webhook-timestamp": String(delivery!.headers["webhook-timestamp"]),
      "webhook-signature": String(delivery!.headers["webhook-signature"]),
    }) as { type: string; data: AuditEvent };
    expect(verified.type).toBe("audit.create");
    expect(verified.data).toMatchObject({ action: "create", keyId: key.keyId, actor: { kind: "provisioning_key" } });
    expect(receiver.accepted().filter((d) => d.body.includes("not matching"))).toHaveLength(0);
    expect(() =>
      new StandardWebhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(delivery!.body, {
        "webhook-id": String(delivery!.headers["webhook-id"]),
        "webhook-timestamp": String(delivery!.headers["webhook-timestamp"]),
        "webhook-signature": String(delivery!.headers["webhook-signature"]),
      }),
    ).toThrow();
  });

  test("a receiver that fails 5 times then succeeds gets the event once more, on the sixth attempt, under the same webhook-id", async () => {
    const created = WebhookWithSecret.parse((await createWebhook({ url: receiver.url, events: ["audit.update"], labelSelector: { team: "flaky" } })).body);
    const key = await gateway.createRegularKey({ name: "flaky", labels: { team: "flaky" } });
    const before = receiver.received.length;
    receiver.failNext(5);
    expect((await account.patch(key.keyId, { expectedVersion: 1, name: "flaky 2" })).status).toBe(200);
    await receiver.waitFor((accepted) => accepted.some((d) => d.body.includes('"flaky 2"')));
    const attempts = receiver.received.slice(before).filter((d) => d.body.includes('"flaky 2"'));
    expect(attempts).toHaveLength(6);
    expect(new Set(attempts.map((d) => d.headers["webhook-id"])).size).toBe(1);
    const deliveries = await call<ListPage<WebhookDelivery>>(gateway.baseUrl, "GET", `/v1/account/webhooks/${created.webhookId}/deliveries`, auth());
    expect(deliveries.body.data.map((d) => WebhookDelivery.parse(d))).toEqual([
      expect.objectContaining({ status: "delivered", attempts: 6, eventType: "audit.update", nextAttemptAt: null }),
    ]);
  });

  test("a budget threshold fires once per fraction under concurrent load", async () => {
    const webhook = WebhookWithSecret.parse((await createWebhook({ url: receiver.url, events: ["key.budget_threshold"] })).body);
    const probe = await gateway.createRegularKey({ name: "cost probe" });
    expect((await respond(gateway, probe.secret)).status).toBe(200);
    const cost = Number((await account.get(probe.keyId)).body.spentUnits);
    expect(cost).toBeGreaterThan(0);
    const key = await gateway.createRegularKey({
      name: "budgeted",
      spendPolicy: { limitUnits: String(+(cost * 10).toFixed(6)) },
      budgetAlertThresholds: [0.3, 0.5, 0.8],
    });
    // Waves of concurrent requests until the key is refused (402) or past 80%: on PostgreSQL a
    // request reserves its most possible cost, so how many fit at once depends on the store.
    let spent = 0;
    for (let wave = 0; wave < 20 && spent < cost * 8; wave++) {
      const answers = await Promise.all(Array.from({ length: 6 }, () => respond(gateway, key.secret)));
      spent = Number((await account.get(key.keyId)).body.spentUnits);
      if (answers.some((answer) => answer.status === 402) && spent >= cost * 8) break;
    }
    expect(spent).toBeGreaterThanOrEqual(cost * 8);
    const ofKey = (accepted: { body: string }[]) => accepted.filter((d) => d.body.includes(key.keyId) && d.body.includes("key.budget_threshold"));
    await receiver.waitFor((accepted) => ofKey(accepted).length >= 3);
    // More charges and scans later: nothing repeats.
    await respond(gateway, key.secret);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = ofKey(receiver.accepted()).map((d) => JSON.parse(d.body) as { data: { threshold: number; keyId: string } });
    expect(events.map((event) => event.data.threshold).sort()).toEqual([0.3, 0.5, 0.8]);
    expect(webhook.events).toEqual(["key.budget_threshold"]);
  });

  test("a threshold already reached when it is declared (a PATCH, no charge after) is sent by the scan, once", async () => {
    await createWebhook({ url: receiver.url, events: ["key.budget_threshold"], labelSelector: { team: "late" } });
    const key = await gateway.createRegularKey({ name: "late", labels: { team: "late" }, spendPolicy: { limitUnits: "0.03" } });
    for (const _ of [1, 2]) expect((await respond(gateway, key.secret, { model: "echo-1", input: "ping", max_output_tokens: 1 })).status).toBe(200);
    expect((await account.patch(key.keyId, { expectedVersion: 1, budgetAlertThresholds: [0.1, 0.9] })).status).toBe(200);
    expect(await gateway.gateway.app.gateway.scanAlerts()).toBeGreaterThanOrEqual(1);
    await gateway.gateway.app.gateway.scanAlerts();
    // One event, whichever endpoints hear of it (the load test's endpoint hears of every key too).
    const ofKey = () => [
      ...new Map(
        receiver
          .accepted()
          .filter((d) => d.body.includes(key.keyId))
          .map((d) => JSON.parse(d.body) as { id: string; data: { threshold: number; spentUnits: string } })
          .map((event) => [event.id, event]),
      ).values(),
    ];
    await receiver.waitFor(() => ofKey().length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ofKey().map((event) => [event.data.threshold, event.data.spentUnits])).toEqual([[0.1, "0.006"]]);
  });

  test("a budget event dates a lifetime window from the key's creation, as the key record and its spend windows do, whether a charge or the scan sends it", async () => {
    await createWebhook({ url: receiver.url, events: ["key.budget_threshold"], labelSelector: { team: "lifetime" } });
    const charged = await gateway.createRegularKey({ name: "lifetime", labels: { team: "lifetime" }, spendPolicy: { limitUnits: "0.03" }, budgetAlertThresholds: [0.1] });
    const scanned = await gateway.createRegularKey({ name: "lifetime", labels: { team: "lifetime" }, spendPolicy: { limitUnits: "0.03" } });
    const ping = { model: "echo-1", input: "ping", max_output_tokens: 1 };
    expect((await respond(gateway, charged.secret, ping)).status).toBe(200);
    expect((await respond(gateway, scanned.secret, ping)).status).toBe(200);
    expect((await account.patch(scanned.keyId, { expectedVersion: 1, budgetAlertThresholds: [0.1] })).status).toBe(200);
    await gateway.gateway.app.gateway.scanAlerts();
    const eventOf = async (keyId: string) => {
      const isEvent = (d: { body: string }) => d.body.includes(keyId) && d.body.includes('"key.budget_threshold"');
      const accepted = await receiver.waitFor((deliveries) => deliveries.some(isEvent));
      return JSON.parse(accepted.find(isEvent)!.body) as { data: { windowStartedAt: string; windowResetsAt: string | null } };
    };
    for (const key of [charged, scanned]) {
      const record = (await account.get(key.keyId)).body;
      const windows = await call<ListPage<{ startedAt: string }>>(gateway.baseUrl, "GET", `/v1/account/api-keys/${key.keyId}/spend-windows`, auth());
      const { data } = await eventOf(key.keyId);
      expect([data.windowStartedAt, data.windowResetsAt]).toEqual([record.createdAt, null]);
      expect([record.spendWindow?.startedAt, windows.body.data[0]!.startedAt]).toEqual([record.createdAt, record.createdAt]);
    }
  });

  test("the expiry and rotation scan sends key.expiring and key.rotation_due once each", async () => {
    await createWebhook({ url: receiver.url, events: ["key.expiring", "key.rotation_due"], labelSelector: { team: "scan" } });
    const key = await gateway.createRegularKey({
      name: "scanned",
      labels: { team: "scan" },
      expiresAt: new Date(Date.now() + 120_000).toISOString(),
      expiryWarningSeconds: 3600,
      rotateAfterSeconds: 60,
    });
    const sentFirst = await gateway.gateway.app.gateway.scanAlerts();
    // The secret is a minute old only in a minute: made older underneath, as time would.
    await runSql([`UPDATE api_keys SET created_at = created_at - 120000 WHERE id = '${key.keyId}'`]);
    const sentSecond = await gateway.gateway.app.gateway.scanAlerts();
    expect(await gateway.gateway.app.gateway.scanAlerts()).toBe(0);
    const ofKey = (type: string) => receiver.accepted().filter((d) => d.body.includes(key.keyId) && d.body.includes(`"type":"${type}"`));
    await receiver.waitFor(() => ofKey("key.expiring").length > 0 && ofKey("key.rotation_due").length > 0);
    expect(sentFirst).toBeGreaterThanOrEqual(1);
    expect(sentSecond).toBeGreaterThanOrEqual(1);
    expect(ofKey("key.expiring")).toHaveLength(1);
    expect(JSON.parse(ofKey("key.expiring")[0]!.body)).toMatchObject({ type: "key.expiring", data: { keyId: key.keyId, expiryWarningSeconds: 3600 } });
    expect(ofKey("key.rotation_due")).toHaveLength(1);
    expect(JSON.parse(ofKey("key.rotation_due")[0]!.body)).toMatchObject({ type: "key.rotation_due", data: { keyId: key.keyId, rotateAfterSeconds: 60 } });
    // Their instants are the key record's, as it shows them.
    const record = (await account.get(key.keyId)).body;
    expect(JSON.parse(ofKey("key.expiring")[0]!.body).data.expiresAt).toBe(record.expiresAt);
    const due = JSON.parse(ofKey("key.rotation_due")[0]!.body).data as { secretCreatedAt: string; dueAt: string };
    expect([due.secretCreatedAt, due.dueAt]).toEqual([record.createdAt, new Date(Date.parse(record.createdAt) + 60_000).toISOString()]);
  });

  test("during a secret rotation's overlap a delivery verifies with the old secret and with the new one", async () => {
    const created = WebhookWithSecret.parse((await createWebhook({ url: receiver.url, events: ["audit.update"], labelSelector: { team: "rotating" } })).body);
    const rotated = await call<WebhookWithSecret>(gateway.baseUrl, "POST", `/v1/account/webhooks/${created.webhookId}/rotate-secret`, {
      ...auth(),
      body: { expectedVersion: 1, overlapSeconds: 600 },
      idempotencyKey: "auto",
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(created.secret);
    const key = await gateway.createRegularKey({ name: "rotating", labels: { team: "rotating" } });
    expect((await account.patch(key.keyId, { expectedVersion: 1, name: "rotating 2" })).status).toBe(200);
    const [delivery] = (await receiver.waitFor((accepted) => accepted.some((d) => d.body.includes('"rotating 2"')))).filter((d) => d.body.includes('"rotating 2"'));
    const headers = { "webhook-id": String(delivery!.headers["webhook-id"]), "webhook-timestamp": String(delivery!.headers["webhook-timestamp"]), "webhook-signature": String(delivery!.headers["webhook-signature"]) };
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new StandardWebhook(created.secret).verify(delivery!.body, headers)).toMatchObject({ type: "audit.update" });
    expect(new StandardWebhook(rotated.body.secret).verify(delivery!.body, headers)).toMatchObject({ type: "audit.update" });
  });

  test("the deliveries show in the metrics: attempts by outcome, and the lag of those sent", async () => {
    const text = await gateway.gateway.app.gateway.metrics.registry.metrics();
    expect(Number(/^gateway_webhook_deliveries_total\{outcome="sent"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
    expect(Number(/^gateway_webhook_deliveries_total\{outcome="retried"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(5);
    expect(Number(/^gateway_webhook_delivery_lag_seconds_count (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
  });

  test("bad input is refused with 400 naming the field", async () => {
    const noEvents = await createWebhook({ url: receiver.url, events: [] });
    expect(expectError(noEvents, 400, "validation_failed").param).toBe("events");
    const badUrl = await createWebhook({ url: "ftp://example.com", events: ["key.expired"] });
    expect(expectError(badUrl, 400, "validation_failed").param).toBe("url");
    const unknownType = await createWebhook({ url: receiver.url, events: ["key.exploded"] });
    expect(expectError(unknownType, 400, "validation_failed").param).toBe("events[0]");
    const unknown = await call(gateway.baseUrl, "GET", "/v1/account/webhooks/wh_doesnotexist", auth());
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("webhook_not_found");
  });
});

export type { ApiKey };

describe("SSRF", () => {
  test("without --webhook-allow-private-targets, loopback targets are refused (by address and by name) and nothing reaches them", async () => {
    const guarded = await startTestGateway({ ownerId: "guarded", webhooks: { pollIntervalMs: 25, retryBaseMs: 10_000, scanIntervalMs: 0 } });
    try {
      const before = receiver.received.length;
      const byName = receiver.url.replace("127.0.0.1", "localhost");
      const hooks = [];
      for (const url of [receiver.url, byName, "http://[::1]:9/hooks", "http://169.254.169.254/latest/meta-data"]) {
        const created = await call<WebhookWithSecret>(guarded.baseUrl, "POST", "/v1/account/webhooks", { bearer: guarded.provisioningKey, body: { url, events: ["audit.create"] }, idempotencyKey: "auto" });
        expect(created.status).toBe(201);
        hooks.push(created.body.webhookId);
      }
      await guarded.createRegularKey({ name: "ssrf probe" });
      for (const webhookId of hooks) {
        const deadline = Date.now() + 10_000;
        let delivery: WebhookDelivery | undefined;
        while (!delivery || delivery.attempts === 0) {
          if (Date.now() > deadline) throw new Error("no attempt was recorded");
          await new Promise((resolve) => setTimeout(resolve, 25));
          delivery = (await call<ListPage<WebhookDelivery>>(guarded.baseUrl, "GET", `/v1/account/webhooks/${webhookId}/deliveries`, { bearer: guarded.provisioningKey })).body.data[0];
        }
        expect(delivery).toMatchObject({ status: "pending", attempts: 1, lastError: expect.stringMatching(/private or local address/) });
      }
      expect(receiver.received.length).toBe(before);
    } finally {
      await guarded.stop();
    }
  });
});

describe("gateway audit verify (CLI)", () => {
  test("exits 0 on an intact chain and 1 naming the broken owner after a row is edited", async () => {
    const target = gateway.databaseUrl ? ["--database", gateway.databaseUrl] : ["--db", gateway.dbPath!];
    const run = () =>
      new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile(process.execPath, [GATEWAY_CLI, "audit", "verify", ...target, "--owner", "cli-owner"], (error, stdout) =>
          resolve({ code: error ? Number(error.code) : 0, stdout }),
        ),
      );
    const owner = await gateway.newProvisioningKey("cli-owner");
    const created = await call(gateway.baseUrl, "POST", "/v1/account/api-keys", { bearer: owner, body: { name: "cli" }, idempotencyKey: "auto" });
    expect(created.status).toBe(201);
    expect(await run()).toEqual({ code: 0, stdout: expect.stringMatching(/^cli-owner: valid, 1 events/) });
    await runSql(
      gateway.databaseUrl
        ? ["ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only", "DELETE FROM audit_events WHERE owner_id = 'cli-owner'", "ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only"]
        : ["DROP TRIGGER IF EXISTS audit_events_no_delete", "DELETE FROM audit_events WHERE owner_id = 'cli-owner'"],
    );
    const broken = await run();
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^cli-owner: BROKEN at seq 1 \(head_mismatch\)/);
  });
});
