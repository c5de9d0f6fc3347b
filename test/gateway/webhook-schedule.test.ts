/**
 * Webhooks against time: a new spend window re-arms a budget threshold, an expiry that passed sends
 * key.expired, an attempt that hangs is cut at its bound and retried, and a delivery that keeps
 * failing ends as `failed` after its last attempt. A gateway on a test clock (its own store), a
 * real receiver on loopback.
 */
import { ListPage, WebhookDelivery, WebhookWithSecret } from "@gateway-keys/contract";
import { createTestClock, startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, call, respond } from "./helpers";
import { startWebhookReceiver, type WebhookReceiver } from "./webhook-receiver";

const DAY_MS = 86_400_000;
const clock = createTestClock(Date.UTC(2030, 0, 1, 12));
let gateway: TestGateway;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  gateway = await startTestGateway({
    clock: clock.now,
    webhooks: { allowPrivateTargets: true, pollIntervalMs: 20, retryBaseMs: 1, maxRetryDelayMs: 1, maxAttempts: 4, attemptTimeoutMs: 300, scanIntervalMs: 0 },
  });
});
afterAll(async () => {
  await gateway?.stop();
  await receiver?.close();
});

const auth = () => ({ bearer: gateway.provisioningKey });
const createWebhook = async (body: object) =>
  WebhookWithSecret.parse((await call(gateway.baseUrl, "POST", "/v1/account/webhooks", { ...auth(), body, idempotencyKey: "auto" })).body);
const deliveriesOf = async (webhookId: string) =>
  (await call<ListPage<WebhookDelivery>>(gateway.baseUrl, "GET", `/v1/account/webhooks/${webhookId}/deliveries`, auth())).body.data;
/** Moves the test clock a little at a time until `done` holds (retries are due by the gateway's clock). */
async function until(done: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    clock.advance(10);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const ping = { model: "echo-1", input: "ping", max_output_tokens: 1 };

test("a daily window's threshold fires once in each window: the next day re-arms it", async () => {
  await createWebhook({ url: receiver.url, events: ["key.budget_threshold"], labelSelector: { team: "daily" } });
  const key = await gateway.createRegularKey({ name: "daily", labels: { team: "daily" }, spendPolicy: { limitUnits: "0.006", resetPeriod: "daily" }, budgetAlertThresholds: [0.5] });
  const ofKey = () => receiver.accepted().filter((d) => d.body.includes(key.keyId)).map((d) => JSON.parse(d.body) as { data: { windowStartedAt: string; threshold: number } });
  for (const _ of [1, 2]) expect((await respond(gateway, key.secret, ping)).status).toBe(200);
  await until(async () => ofKey().length === 1, "the first window's alert");
  expect((await respond(gateway, key.secret, ping)).status).toBe(402);
  clock.advance(DAY_MS);
  expect((await respond(gateway, key.secret, ping)).status).toBe(200);
  await until(async () => ofKey().length === 2, "the second window's alert");
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(ofKey().map((event) => [event.data.windowStartedAt, event.data.threshold])).toEqual([
    ["2030-01-01T00:00:00.000Z", 0.5],
    ["2030-01-02T00:00:00.000Z", 0.5],
  ]);
});

test("an expiry that passed sends key.expired once", async () => {
  await createWebhook({ url: receiver.url, events: ["key.expired"], labelSelector: { team: "expiry" } });
  const expiresAt = new Date(clock.now().getTime() + 60_000).toISOString();
  const key = await gateway.createRegularKey({ name: "expiring", labels: { team: "expiry" }, expiresAt });
  expect(await gateway.gateway.app.gateway.scanAlerts()).toBe(0);
  clock.advance(61_000);
  expect(await gateway.gateway.app.gateway.scanAlerts()).toBe(1);
  expect(await gateway.gateway.app.gateway.scanAlerts()).toBe(0);
  await until(async () => receiver.accepted().some((d) => d.body.includes(key.keyId)), "key.expired");
  const [event] = receiver.accepted().filter((d) => d.body.includes(key.keyId));
  expect(JSON.parse(event!.body)).toMatchObject({ type: "key.expired", data: { keyId: key.keyId, expiresAt } });
});

test("an attempt that hangs is cut at its bound and retried; one that keeps failing ends failed after its last attempt", async () => {
  const hanging = await createWebhook({ url: receiver.url, events: ["audit.update"], labelSelector: { team: "hang" } });
  const key = await gateway.createRegularKey({ name: "hang", labels: { team: "hang" } });
  receiver.holdNext(1);
  expect((await accountClient(gateway).patch(key.keyId, { expectedVersion: 1, name: "hang 2" })).status).toBe(200);
  await until(async () => (await deliveriesOf(hanging.webhookId))[0]?.status === "delivered", "the retried delivery");
  expect((await deliveriesOf(hanging.webhookId))[0]).toMatchObject({ status: "delivered", attempts: 2 });

  const doomedReceiver = await startWebhookReceiver();
  try {
    doomedReceiver.failNext(1000);
    const doomed = await createWebhook({ url: doomedReceiver.url, events: ["audit.update"], labelSelector: { team: "doomed" } });
    const doomedKey = await gateway.createRegularKey({ name: "doomed", labels: { team: "doomed" } });
    expect((await accountClient(gateway).patch(doomedKey.keyId, { expectedVersion: 1, name: "doomed 2" })).status).toBe(200);
    await until(async () => (await deliveriesOf(doomed.webhookId))[0]?.status === "failed", "the delivery to fail");
    expect((await deliveriesOf(doomed.webhookId))[0]).toMatchObject({ status: "failed", attempts: 4, nextAttemptAt: null, lastError: "the endpoint answered HTTP 500" });
    expect(doomedReceiver.received).toHaveLength(4);
  } finally {
    await doomedReceiver.close();
  }
});

test("maintenance removes a webhook's ended deliveries 30 days after their event, and keeps younger ones", async () => {
  const kept = await createWebhook({ url: receiver.url, events: ["audit.create"], labelSelector: { team: "history" } });
  await gateway.createRegularKey({ name: "history", labels: { team: "history" } });
  await until(async () => (await deliveriesOf(kept.webhookId))[0]?.status === "delivered", "the delivery");
  // (The file's earlier tests' deliveries are older: those go first.)
  clock.advance(29 * DAY_MS);
  await gateway.gateway.app.gateway.runMaintenance();
  expect(await deliveriesOf(kept.webhookId)).toHaveLength(1);
  clock.advance(DAY_MS);
  expect((await gateway.gateway.app.gateway.runMaintenance()).webhookDeliveries).toBeGreaterThanOrEqual(1);
  expect(await deliveriesOf(kept.webhookId)).toEqual([]);
});
