/**
 * Extension `secret_use` at the real boundary: a gateway on a real port (SQLite, and PostgreSQL in
 * the postgres project), the official `openai` client as two services with their own User-Agent,
 * a real signing receiver for the events. Time is the wall clock, with graces of seconds: the
 * flush and the scan run on their own timers, as in production, only faster.
 */
import { appendFileSync } from "node:fs";
import OpenAI from "openai";
import { Webhook as StandardWebhook } from "standardwebhooks";
import type { ApiKey, AuditEvent, WebhookWithSecret } from "@gateway-keys/contract";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, expectError } from "./helpers";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

const FLUSH_MS = 200;

let gateway: TestGateway;
let receiver: WebhookReceiver;
let webhookSecret: string;
let account: ReturnType<typeof accountClient>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  gateway = await startTestGateway({
    webhooks: { allowPrivateTargets: true, pollIntervalMs: 50, scanIntervalMs: 0 },
    secretUse: { flushIntervalMs: FLUSH_MS },
  });
  account = accountClient(gateway);
  const webhook = await call<WebhookWithSecret>(gateway.baseUrl, "POST", "/v1/account/webhooks", {
    bearer: gateway.provisioningKey,
    idempotencyKey: "auto",
    body: {
      url: receiver.url,
      events: ["key.previous_secret_in_use", "key.previous_secret_retired", "audit.previous_secret_in_use", "audit.previous_secret_retired"],
    },
  });
  expect(webhook.status).toBe(201);
  webhookSecret = webhook.body.secret;
});
afterAll(async () => {
  await gateway?.stop();
  await receiver?.close();
});

/** A service calling the gateway through the official client, under its own User-Agent. */
function service(name: string, secret: string): OpenAI {
  return new OpenAI({ apiKey: secret, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0, defaultHeaders: { "user-agent": `${name}/1.0` } });
}
const chat = (client: OpenAI) => client.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "hello" }] });

/** The events of one key the receiver accepted, verified with the webhook's secret. */
function eventsOf(keyId: string, type: string): { type: string; timestamp: string; data: any; receivedAt: number }[] {
  return receiver
    .accepted()
    .map((delivery) => {
      const event = new StandardWebhook(webhookSecret).verify(delivery.body, {
        "webhook-id": String(delivery.headers["webhook-id"]),
        "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
        "webhook-signature": String(delivery.headers["webhook-signature"]),
      }) as { type: string; timestamp: string; data: any };
      return { ...event, receivedAt: delivery.receivedAt };
    })
    .filter((event) => event.type === type && (event.data.keyId ?? event.data.keyId) === keyId);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const record = async (keyId: string): Promise<ApiKey> => {
  const read = await account.get(keyId);
  expect(read.status).toBe(200);
  return read.body;
};

test("two services on one key: the record names the one left on the old secret, the warning names it before the grace ends, and the old secret retires once both moved — not before", async () => {
  const started = Date.now();
  const timeline: string[] = [];
  const mark = (step: string, at = Date.now()) => timeline.push(`+${((at - started) / 1000).toFixed(2)} s  ${step}`);
  const key = await gateway.createRegularKey({ name: "shared by two services" });
  mark("key created");
  await chat(service("billing-service", key.secret));
  await chat(service("search-service", key.secret));
  mark("both services called with the first secret");

  const rotated = await account.rotate(key.keyId, { expectedVersion: key.version, gracePeriodSeconds: 14, retireWhenIdleSeconds: 5, inUseWarningSeconds: 10 });
  expect(rotated.status).toBe(200);
  const rotatedAt = Date.parse(rotated.body.rotatedAt!);
  mark(`rotated: grace 14 s, retireWhenIdle 5 s, warning 10 s before the end (version ${rotated.body.version})`);
  expect(rotated.body.previousSecret).toMatchObject({ hint: key.hint, retireWhenIdleSeconds: 5, retiredAt: null, requestsSinceRotation: 0 });
  expect(Date.parse(rotated.body.previousSecret!.inUseWarningAt!)).toBe(Date.parse(rotated.body.previousSecret!.expiresAt) - 10_000);

  // billing moves to the new secret at once; search keeps the old one, calling every 400 ms.
  const billing = service("billing-service", rotated.body.secret);
  const searchOnOld = service("search-service", key.secret);
  await chat(billing);
  mark("billing-service moved to the new secret");
  let searchCalls = 0;
  const keepCalling = async (untilMs: number) => {
    while (Date.now() < untilMs) {
      await chat(searchOnOld);
      searchCalls++;
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
  };
  // Past retireWhenIdleSeconds since the rotation: still in use, so still working.
  await keepCalling(rotatedAt + 6_500);
  mark(`search-service still on the old secret after ${searchCalls} calls over 6.5 s (> retireWhenIdle 5 s): still accepted`);

  // The warning is due 4 s after the rotation; it names search-service, not billing-service.
  const [warning] = await until(async () => eventsOf(key.keyId, "key.previous_secret_in_use"), (events) => events.length > 0, "key.previous_secret_in_use");
  mark(`key.previous_secret_in_use received, naming ${warning!.data.clients.map((c: { userAgent: string }) => c.userAgent).join(", ")}`, warning!.receivedAt);
  expect(warning!.receivedAt).toBeLessThan(Date.parse(rotated.body.previousSecret!.expiresAt));
  expect(warning!.data).toMatchObject({ keyId: key.keyId, previousSecretHint: key.hint, expiresAt: rotated.body.previousSecret!.expiresAt });
  expect(warning!.data.clients.map((client: { userAgent: string }) => client.userAgent)).toEqual(["search-service/1.0"]);
  // Sent about 4 s after the rotation, from the figures flushed by then: some of search's calls, none of billing's.
  expect(warning!.data.requestsSinceRotation).toBeGreaterThan(0);
  expect(warning!.data.requestsSinceRotation).toBeLessThanOrEqual(searchCalls);
  expect(warning!.data.clients[0].requests).toBe(warning!.data.requestsSinceRotation);

  // The record: search on the old secret (requests since the rotation), billing on the new one.
  await gateway.gateway.app.gateway.flushSecretUse();
  const seen = await record(key.keyId);
  mark("record read: previousSecret names search-service");
  expect(seen.version).toBe(rotated.body.version);
  expect(seen.currentSecret).toMatchObject({ hint: rotated.body.hint, requestsSinceRotation: 1 });
  expect(seen.currentSecret!.clients).toMatchObject([{ userAgent: "billing-service/1.0", address: "127.0.0.1", requests: 1 }]);
  const onOld = seen.previousSecret!.clients.filter((client) => client.requests > 0);
  expect(onOld).toMatchObject([{ userAgent: "search-service/1.0", address: "127.0.0.1", requests: searchCalls }]);
  expect(Date.parse(onOld[0]!.lastSeenAt)).toBeGreaterThan(rotatedAt);
  // billing's use of the old secret ended before the rotation: kept, with no request since it.
  const billingOnOld = seen.previousSecret!.clients.find((client) => client.userAgent === "billing-service/1.0");
  expect(billingOnOld).toMatchObject({ requests: 0 });
  expect(Date.parse(billingOnOld!.lastSeenAt)).toBeLessThan(rotatedAt);
  expect(seen.previousSecret).toMatchObject({ requestsSinceRotation: searchCalls, retiredAt: null });

  // search moves too: the old secret goes idle, and retires retireWhenIdle (plus the flush allowance) after its last use.
  const search = service("search-service", rotated.body.secret);
  await chat(search);
  const lastOldUse = Date.parse(seen.previousSecret!.lastUsedAt!);
  mark("search-service moved to the new secret");
  const retired = await until(() => record(key.keyId), (read) => read.previousSecret?.retiredAt != null, "the previous secret's retirement");
  mark(`previous secret retired (${retired.previousSecret!.retiredReason}), ${((Date.parse(retired.previousSecret!.retiredAt!) - Date.parse(seen.previousSecret!.lastUsedAt!)) / 1000).toFixed(2)} s after its last use`, Date.parse(retired.previousSecret!.retiredAt!));
  mark("record read: the previous secret shows retired");
  expect(retired.previousSecret).toMatchObject({ retiredReason: "idle" });
  const retiredAt = Date.parse(retired.previousSecret!.retiredAt!);
  expect(retiredAt - lastOldUse).toBeGreaterThanOrEqual(5_000);
  expect(retiredAt).toBeLessThan(Date.parse(retired.previousSecret!.expiresAt));
  // Retiring changed nobody's key: no version bump, no updatedAt change.
  expect(retired.version).toBe(rotated.body.version);
  expect(retired.updatedAt).toBe(rotated.body.updatedAt);
  await expect(chat(searchOnOld)).rejects.toMatchObject({ status: 401 });
  mark("the old secret answers 401");
  expect((await chat(search)).choices[0]!.message.content).toBe("hello");

  const [retiredEvent] = await until(async () => eventsOf(key.keyId, "key.previous_secret_retired"), (events) => events.length > 0, "key.previous_secret_retired");
  mark(`key.previous_secret_retired received (reason ${retiredEvent!.data.reason})`, retiredEvent!.receivedAt);
  expect(retiredEvent!.data).toMatchObject({ keyId: key.keyId, previousSecretHint: key.hint, reason: "idle", retiredAt: retired.previousSecret!.retiredAt });
  const audits = await until(
    async () => receiver.accepted().map((delivery) => JSON.parse(delivery.body) as { type: string; data: AuditEvent }).filter((event) => event.data.keyId === key.keyId && event.type.startsWith("audit.")),
    (events) => events.length >= 2,
    "the audit events",
  );
  expect(audits.map((event) => [event.data.action, event.data.actor.kind, event.data.versionBefore, event.data.versionAfter])).toEqual([
    ["previous_secret_in_use", "system", rotated.body.version, rotated.body.version],
    ["previous_secret_retired", "system", rotated.body.version, rotated.body.version],
  ]);
  // Each event once, however many scans ran since.
  await new Promise((resolve) => setTimeout(resolve, 5 * FLUSH_MS));
  await gateway.gateway.app.gateway.scanAlerts();
  expect(eventsOf(key.keyId, "key.previous_secret_in_use")).toHaveLength(1);
  expect(eventsOf(key.keyId, "key.previous_secret_retired")).toHaveLength(1);
  mark("each event once; version unchanged");
  if (process.env.SECRET_USE_TIMELINE_FILE) appendFileSync(process.env.SECRET_USE_TIMELINE_FILE, `${process.env.GATEWAY_TEST_STORE ?? "sqlite"}:\n${timeline.join("\n")}\n`);
});

test("a previous secret nobody uses after the rotation is not reported in use, and retires idle", async () => {
  const key = await gateway.createRegularKey({ name: "moved at once" });
  await chat(service("only-service", key.secret));
  const rotated = (await account.rotate(key.keyId, { expectedVersion: 1, gracePeriodSeconds: 8, retireWhenIdleSeconds: 5, inUseWarningSeconds: 7 })).body;
  await chat(service("only-service", rotated.secret));
  const retired = await until(() => record(key.keyId), (read) => read.previousSecret?.retiredAt != null, "retirement");
  expect(retired.previousSecret).toMatchObject({ retiredReason: "idle", requestsSinceRotation: 0 });
  expect(Date.parse(retired.previousSecret!.retiredAt!) - Date.parse(rotated.rotatedAt!)).toBeGreaterThanOrEqual(5_000);
  await until(async () => eventsOf(key.keyId, "key.previous_secret_retired"), (events) => events.length === 1, "key.previous_secret_retired");
  expect(eventsOf(key.keyId, "key.previous_secret_in_use")).toHaveLength(0);
});

test("a grace without retireWhenIdle ends as expired; revoking ends a running grace as revoked; a newer rotation as rotated — each with one event", async () => {
  const expiring = await gateway.createRegularKey({ name: "expires" });
  const expiringRotated = (await account.rotate(expiring.keyId, { expectedVersion: 1, gracePeriodSeconds: 1 })).body;
  const expired = await until(() => record(expiring.keyId), (read) => read.previousSecret?.retiredAt != null, "expiry");
  expect(expired.previousSecret).toMatchObject({ retiredReason: "expired", retiredAt: expiringRotated.previousSecret!.expiresAt, retireWhenIdleSeconds: null });

  const revoked = await gateway.createRegularKey({ name: "revoked" });
  const revokedRotated = (await account.rotate(revoked.keyId, { expectedVersion: 1, gracePeriodSeconds: 600 })).body;
  const revokedRecord = (await account.revoke(revoked.keyId, { expectedVersion: revokedRotated.version })).body;
  expect(revokedRecord.previousSecret).toMatchObject({ retiredReason: "revoked", retiredAt: revokedRecord.revokedAt });

  const twice = await gateway.createRegularKey({ name: "rotated twice" });
  const first = (await account.rotate(twice.keyId, { expectedVersion: 1, gracePeriodSeconds: 600 })).body;
  const second = (await account.rotate(twice.keyId, { expectedVersion: first.version, gracePeriodSeconds: 600 })).body;
  expect(second.previousSecret).toMatchObject({ hint: first.hint, retiredAt: null });
  await expect(chat(service("any", twice.secret))).rejects.toMatchObject({ status: 401 });

  for (const [keyId, reason] of [[expiring.keyId, "expired"], [revoked.keyId, "revoked"], [twice.keyId, "rotated"]] as const) {
    const [event] = await until(async () => eventsOf(keyId, "key.previous_secret_retired"), (events) => events.length > 0, `${reason} event`);
    expect(event!.data.reason).toBe(reason);
  }
  await gateway.gateway.app.gateway.scanAlerts();
  await new Promise((resolve) => setTimeout(resolve, 3 * FLUSH_MS));
  for (const keyId of [expiring.keyId, revoked.keyId, twice.keyId]) expect(eventsOf(keyId, "key.previous_secret_retired")).toHaveLength(1);
});

test("rotate refuses retireWhenIdleSeconds and inUseWarningSeconds it cannot honour, naming the field, and changes nothing", async () => {
  const key = await gateway.createRegularKey({ name: "bad rotate" });
  const cases: [unknown, string][] = [
    [{ expectedVersion: 1, retireWhenIdleSeconds: 60 }, "retireWhenIdleSeconds"],
    [{ expectedVersion: 1, gracePeriodSeconds: 60, retireWhenIdleSeconds: 4 }, "retireWhenIdleSeconds"],
    [{ expectedVersion: 1, gracePeriodSeconds: 60, inUseWarningSeconds: 60 }, "inUseWarningSeconds"],
  ];
  for (const [body, field] of cases) {
    const refused = await account.rotate(key.keyId, body);
    expect(expectError(refused, 400, "validation_failed").message).toContain(field);
  }
  expect((await record(key.keyId)).version).toBe(1);
});

test("a secret's clients are bounded to the 20 most recent, and the User-Agent is cut to 200 characters", async () => {
  const key = await gateway.createRegularKey({ name: "many clients" });
  for (let i = 0; i < 25; i++) await chat(service(`client-${String(i).padStart(2, "0")}`, key.secret));
  await chat(service("x".repeat(300), key.secret));
  await gateway.gateway.app.gateway.flushSecretUse();
  const clients = (await record(key.keyId)).currentSecret!.clients;
  expect(clients).toHaveLength(20);
  expect(clients[0]!.userAgent).toBe(`${"x".repeat(300)}/1.0`.slice(0, 200));
  expect(clients.map((client) => client.userAgent)).not.toContain("client-00/1.0");
  expect((await record(key.keyId)).currentSecret!.requestsSinceRotation).toBe(26);
});

test("X-Forwarded-For is not believed by default: the address is the TCP peer's", async () => {
  const key = await gateway.createRegularKey({ name: "forwarded" });
  const client = new OpenAI({ apiKey: key.secret, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0, defaultHeaders: { "x-forwarded-for": "203.0.113.7" } });
  await chat(client);
  await gateway.gateway.app.gateway.flushSecretUse();
  expect((await record(key.keyId)).currentSecret!.clients).toMatchObject([{ address: "127.0.0.1" }]);
});

test("with trustProxy, the address is the one X-Forwarded-For reports", async () => {
  const trusting = await startTestGateway({ trustProxy: "127.0.0.1", secretUse: { flushIntervalMs: FLUSH_MS } });
  try {
    const key = await trusting.createRegularKey({ name: "behind a proxy" });
    const client = new OpenAI({ apiKey: key.secret, baseURL: `${trusting.baseUrl}/v1`, maxRetries: 0, defaultHeaders: { "x-forwarded-for": "203.0.113.7" } });
    await chat(client);
    await trusting.gateway.app.gateway.flushSecretUse();
    const read = await accountClient(trusting).get(key.keyId);
    expect(read.body.currentSecret!.clients).toMatchObject([{ address: "203.0.113.7" }]);
  } finally {
    await trusting.stop();
  }
});
