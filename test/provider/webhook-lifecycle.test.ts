import { createWebhookProvider, WebhookInputs, type WebhookProvider } from "@gateway-keys/provider/runtime";
import { GatewayClient } from "@gateway-keys/sdk";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { countingClients, type CountingClients } from "./support/counting-clients";

/** The Webhook provider's operations called directly against a real gateway over HTTP. */
describe("Webhook create, update and delete", () => {
  let gateway: TestGateway;
  let clients: CountingClients;
  let provider: WebhookProvider;
  let owner: GatewayClient;
  beforeAll(async () => {
    gateway = await startTestGateway();
    clients = countingClients();
    owner = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: gateway.provisioningKey });
  });
  beforeEach(() => {
    provider = createWebhookProvider({
      createClient: clients.createClient,
      env: { GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: gateway.provisioningKey },
    });
  });
  afterEach(() => provider.close());
  afterAll(async () => {
    await owner.close();
    await clients.close();
    await gateway.stop();
  });

  let resources = 0;
  const newResource = (extra: Record<string, unknown> = {}) =>
    WebhookInputs.parse({
      url: "https://hooks.example.com/a",
      events: ["key.expiring"],
      clientReference: `urn:pulumi:test::webhooks::pulumi-nodejs:dynamic/gateway:Webhook::w${++resources}`,
      ...extra,
    });

  it("a create repeated after a lost answer gets the same endpoint and secret; after a delete it makes a new one", async () => {
    const desired = newResource();
    const first = await provider.create(desired);
    const again = await provider.create(desired);
    expect(again.id).toBe(first.id);
    expect(again.outs!.signingSecret).toBe(first.outs!.signingSecret);
    expect(again.outs!.signingSecretKnown).toBe(true);
    await provider.delete(first.id, first.outs!);
    const recreated = await provider.create(desired);
    expect(recreated.id).not.toBe(first.id);
    expect((await owner.webhooks.get(recreated.id)).url).toBe("https://hooks.example.com/a");
    await provider.delete(recreated.id, recreated.outs!);
  });

  it("refuses to overwrite a change made outside the stack, saying what to run", async () => {
    const { id, outs } = await provider.create(newResource());
    await owner.webhooks.update(id, { expectedVersion: 1, enabled: false });
    await expect(provider.update(id, outs!, { ...newResource(), events: ["key.expired"] })).rejects.toThrow(
      `webhook ${id} changed outside this stack: state has version 1, the gateway has version 2; run \`pulumi refresh\`, review, then \`pulumi up\`. Nothing was overwritten.`,
    );
    expect((await owner.webhooks.get(id)).events).toEqual(["key.expiring"]);
    const read = await provider.read(id, outs!);
    expect(read.inputs).toMatchObject({ enabled: false, events: ["key.expiring"] });
    await provider.delete(id, read.props!);
  });

  it("rotates the signing secret in place on a new rotationTrigger, the old one signing for the overlap", async () => {
    const created = await provider.create(newResource());
    const rotated = await provider.update(created.id, created.outs!, { ...newResource(), rotationTrigger: 1, rotationOverlap: "1h" });
    expect(rotated.outs!.signingSecret).toMatch(/^whsec_/);
    expect(rotated.outs!.signingSecret).not.toBe(created.outs!.signingSecret);
    expect(Date.parse(rotated.outs!.previousSecretExpiresAt!)).toBeGreaterThan(Date.now() + 55 * 60_000);
    await provider.delete(created.id, rotated.outs!);
  });

  it("counts an endpoint already deleted as deleted", async () => {
    const { id, outs } = await provider.create(newResource());
    await owner.webhooks.delete(id);
    await expect(provider.delete(id, outs!)).resolves.toBeUndefined();
    expect(await provider.read(id, outs!)).toEqual({});
  });

  it("does not drop an endpoint from the stack when another owner's provisioning key is configured: it says whose it is", async () => {
    const { id, outs } = await provider.create(newResource());
    const otherOwner = await gateway.newProvisioningKey("other-owner");
    const other = createWebhookProvider({ createClient: clients.createClient, env: { GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: otherOwner } });
    try {
      const said = `webhook ${id} belongs to owner ${gateway.ownerId}, but the provisioning key configured for ${gateway.baseUrl} belongs to owner other-owner; nothing was changed.`;
      await expect(other.read(id, outs!)).rejects.toThrow(said);
      await expect(other.delete(id, outs!)).rejects.toThrow(said);
      expect((await owner.webhooks.get(id)).webhookId).toBe(id);
    } finally {
      await other.close();
    }
    await provider.delete(id, outs!);
  });
});
