/** The SDK's audit-event and webhook methods against the real gateway over HTTP. */
import { ConflictError, GatewayClient, NotFoundError } from "@gateway-keys/sdk";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";

let gateway: TestGateway;
let client: GatewayClient;

beforeAll(async () => {
  gateway = await startTestGateway({ webhooks: { deliver: false, scanIntervalMs: 0 } });
  client = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: gateway.provisioningKey, backoff: { baseDelayMs: 5 } });
});

afterAll(async () => {
  await client.close();
  await gateway.stop();
});

test("auditEvents.list follows cursors over every event of a key, and verify says the chain is intact", async () => {
  const key = await client.apiKeys.create({ name: "sdk audited" });
  let version = key.version;
  for (let i = 0; i < 3; i++) version = (await client.apiKeys.update(key.keyId, { expectedVersion: version, name: `sdk audited ${i}` })).version;
  const actions: string[] = [];
  for await (const event of client.auditEvents.list({ keyId: key.keyId, limit: 2 })) actions.push(event.action);
  expect(actions).toEqual(["update", "update", "update", "create"]);
  expect(await client.auditEvents.verify()).toMatchObject({ object: "audit_verification", valid: true, problem: null });
});

test("webhooks: create shows the secret once; update, rotateSecret, deliveries and delete work, with typed errors", async () => {
  const hook = await client.webhooks.create({ url: "https://hooks.example.com/in", events: ["key.expired", "audit.revoke"] });
  expect(hook.secret).toMatch(/^whsec_/);
  expect(await client.webhooks.get(hook.webhookId)).not.toHaveProperty("secret");
  const listed: string[] = [];
  for await (const listedHook of client.webhooks.list()) listed.push(listedHook.webhookId);
  expect(listed).toContain(hook.webhookId);

  const disabled = await client.webhooks.update(hook.webhookId, { expectedVersion: 1, enabled: false });
  expect(disabled).toMatchObject({ enabled: false, version: 2 });
  await expect(client.webhooks.update(hook.webhookId, { expectedVersion: 1, enabled: true })).rejects.toBeInstanceOf(ConflictError);

  const rotated = await client.webhooks.rotateSecret(hook.webhookId, { expectedVersion: 2, overlapSeconds: 60 });
  expect(rotated.secret).not.toBe(hook.secret);
  expect(rotated.previousSecretExpiresAt).not.toBeNull();
  expect((await client.webhooks.deliveries(hook.webhookId)).data).toEqual([]);

  expect(await client.webhooks.delete(hook.webhookId)).toEqual({ object: "webhook", webhookId: hook.webhookId, deleted: true });
  await expect(client.webhooks.get(hook.webhookId)).rejects.toBeInstanceOf(NotFoundError);
  const actions: string[] = [];
  for await (const event of client.auditEvents.list()) if (event.webhookId === hook.webhookId) actions.push(event.action);
  expect(actions).toEqual(["webhook_delete", "webhook_rotate_secret", "webhook_update", "webhook_create"]);
});
