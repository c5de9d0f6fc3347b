import { Webhook as StandardWebhook } from "standardwebhooks";
import { hintOf } from "@gateway-keys/contract";
import { ApiKey, Webhook, type ApiKeyArgs, type WebhookArgs } from "@gateway-keys/provider";
import { GatewayClient, NotFoundError } from "@gateway-keys/sdk";
import { createTestClock } from "@gateway-keys/testkit";
import { destroy, engineTranscript, findLeaks, preview, refresh, up } from "@gateway-keys/testkit/engine";
import { startWebhookReceiver, type WebhookReceiver } from "../gateway/webhook-receiver";
import { useKeyTestEnvironment } from "./fixture";
import { expectWebhookAndKeyChangedInPlace } from "./support/webhook-changes";

/**
 * `Webhook` and the alert fields of `ApiKey` through the real engine (dynamic provider), against a
 * real gateway that delivers to a real HTTP receiver on loopback: a program declares an endpoint
 * and a key with thresholds, changes both in place, rotates the key with `pulumi up`, and the
 * rotation arrives at the receiver as a signed event naming the key and the actor; the key's
 * `rotateAfter`, carried to the gateway, makes its scan send `key.rotation_due` once the secret is that old.
 */
describe("Webhook and the key's alerts, declared in a Pulumi program", () => {
  // The receiver is on 127.0.0.1: the operator's flag allows loopback targets; deliveries polled fast.
  // The gateway's clock is the system's until the test moves it on, to make a secret due for rotation.
  const clock = createTestClock(Date.now());
  const env = useKeyTestEnvironment({ clock: clock.now, webhooks: { allowPrivateTargets: true, pollIntervalMs: 50, scanIntervalMs: 0 } });
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  const client = () => new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });
  /** `METHOD /path` of each mutation the provider sent, ids replaced. */
  const mutations = () => env.recorder.calls().filter((call) => !call.startsWith("GET")).map((call) => call.replace(/wh_[A-Za-z0-9]+/g, "{id}"));

  it("creates, changes in place, delivers a `pulumi up` rotation signed to the receiver, sends key.rotation_due from rotateAfter, and deletes; secrets only encrypted", async () => {
    let webhookArgs: WebhookArgs = { url: receiver.url, events: ["audit.rotate", "key.budget_threshold"], labelSelector: { team: "search" } };
    let keyArgs: ApiKeyArgs = {
      labels: { team: "search" },
      spendPolicy: { limitUnits: "100", resetPeriod: "monthly" },
      budgetAlertThresholds: [0.5, 0.8, 1],
      expiresAt: "2099-01-01T00:00:00Z",
      expiryWarning: "7d",
      rotateAfter: "30d",
      rotationTrigger: "2026-11",
    };
    const stack = await env.sandbox.inlineStack(
      "webhooks",
      async () => {
        const alerts = new Webhook("alerts", webhookArgs);
        const key = new ApiKey("ci", keyArgs);
        return { webhookId: alerts.webhookId, signingSecret: alerts.signingSecret, version: alerts.version, keyId: key.keyId, secret: key.secret };
      },
      env.stackConfig(),
    );

    const created = await up(stack);
    const webhookId = created.result.outputs.webhookId!.value as string;
    const signingSecret = created.result.outputs.signingSecret!.value as string;
    const keyId = created.result.outputs.keyId!.value as string;
    expect(created.result.outputs.signingSecret!.secret).toBe(true);
    expect(signingSecret).toMatch(/^whsec_/);
    expect(await client().webhooks.get(webhookId)).toMatchObject({ url: receiver.url, events: ["audit.rotate", "key.budget_threshold"], labelSelector: { team: "search" }, enabled: true });
    expect(await client().apiKeys.get(keyId)).toMatchObject({ budgetAlertThresholds: [0.5, 0.8, 1], expiryWarningSeconds: 604_800, rotateAfterSeconds: 2_592_000 });
    await preview(stack, { expectNoChanges: true });
    await refresh(stack, { expectNoChanges: true });

    // Events, thresholds and the warning: the plan says update, never replace; one PATCH each.
    webhookArgs = { ...webhookArgs, events: ["audit.rotate", "key.expiring", "key.rotation_due"] };
    keyArgs = { ...keyArgs, budgetAlertThresholds: [0.9], expiryWarning: "1d" };
    const changed = await expectWebhookAndKeyChangedInPlace(stack, env.recorder);
    expect(changed.result.outputs.webhookId!.value).toBe(webhookId);
    expect(changed.result.outputs.signingSecret!.value).toBe(signingSecret);
    expect(await client().apiKeys.get(keyId)).toMatchObject({ budgetAlertThresholds: [0.9], expiryWarningSeconds: 86_400 });
    await preview(stack, { expectNoChanges: true });

    // A rotation made by `pulumi up` reaches the receiver, signed with the stack's signing secret.
    keyArgs = { ...keyArgs, rotationTrigger: "2026-12" };
    await up(stack);
    const isRotation = (d: { body: string }) => (JSON.parse(d.body) as { type: string }).type === "audit.rotate";
    const delivery = (await receiver.waitFor((accepted) => accepted.some(isRotation))).find(isRotation);
    const verified = new StandardWebhook(signingSecret).verify(delivery!.body, {
      "webhook-id": String(delivery!.headers["webhook-id"]),
      "webhook-timestamp": String(delivery!.headers["webhook-timestamp"]),
      "webhook-signature": String(delivery!.headers["webhook-signature"]),
    }) as { type: string; data: { keyId: string; action: string; actor: { kind: string; id: string; hint: string } } };
    expect(verified.type).toBe("audit.rotate");
    expect(verified.data).toMatchObject({ action: "rotate", keyId, actor: { kind: "provisioning_key", hint: hintOf(env.gateway.provisioningKey) } });
    expect(verified.data.actor.id).toEqual(expect.any(String));

    // The key carries rotateAfter as rotateAfterSeconds: 31 days on, the gateway's scan says the secret is due.
    clock.advance(31 * 24 * 3600_000);
    expect(await env.gateway.gateway.app.gateway.scanAlerts()).toBeGreaterThanOrEqual(1);
    const isDue = (d: { body: string }) => (JSON.parse(d.body) as { type: string }).type === "key.rotation_due";
    const due = JSON.parse((await receiver.waitFor((accepted) => accepted.some(isDue))).find(isDue)!.body) as { data: unknown };
    expect(due.data).toMatchObject({ keyId, rotateAfterSeconds: 2_592_000 });

    const keySecret = (await stack.outputs()).secret!.value as string;
    await destroy(stack);
    await expect(client().webhooks.get(webhookId)).rejects.toBeInstanceOf(NotFoundError);
    const leaks = { signingSecret, keySecret, provisioningKey: env.gateway.provisioningKey };
    expect(await findLeaks(env.sandbox.backendDir, leaks)).toEqual([]);
    for (const secret of Object.values(leaks)) expect(engineTranscript()).not.toContain(secret);
  });

  it("adopts an endpoint made outside with the `import` option: nothing sent, the signing secret unknown, destroy deletes it", async () => {
    const { secret: outsideSecret, ...made } = await client().webhooks.create({ url: "https://hooks.example.com/legacy", events: ["key.expired"] });
    const stack = await env.sandbox.inlineStack(
      "webhook-import",
      async () => {
        const legacy = new Webhook("legacy", { url: "https://hooks.example.com/legacy", events: ["key.expired"] }, { import: made.webhookId });
        return { webhookId: legacy.webhookId, signingSecretKnown: legacy.signingSecretKnown, signingSecret: legacy.signingSecret };
      },
      env.stackConfig(),
    );
    env.recorder.reset();
    const adopted = await up(stack);
    expect(adopted.result.outputs.webhookId!.value).toBe(made.webhookId);
    expect(adopted.result.outputs.signingSecretKnown!.value).toBe(false);
    expect(adopted.result.outputs.signingSecret?.value).toBeUndefined();
    expect(mutations()).toEqual([]);
    await preview(stack, { expectNoChanges: true });
    await destroy(stack);
    await expect(client().webhooks.get(made.webhookId)).rejects.toBeInstanceOf(NotFoundError);
    expect(engineTranscript()).not.toContain(outsideSecret);
  });
});
