import { createApiKeyProvider, ApiKeyInputs, DEFAULT_TIMEOUT_SECONDS, type ApiKeyProvider, type Connection, type StoredKey } from "@gateway-keys/provider/runtime";
import { GatewayClient } from "@gateway-keys/sdk";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { startSeedOnlyGateway } from "../e2e/support/seed-only-gateway";
import { countingClients, type CountingClients } from "./support/counting-clients";

/** `create` called directly: one key per resource, whatever happened to an earlier attempt. */
describe("ApiKey create", () => {
  let gateway: TestGateway;
  let clients: CountingClients;
  let provider: ApiKeyProvider;
  let warnings: string[];
  let owner: GatewayClient;
  /** Time that passes on the gateway beyond real time. */
  let passed = 0;
  beforeAll(async () => {
    gateway = await startTestGateway({ clock: () => new Date(Date.now() + passed) });
    clients = countingClients();
    owner = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: gateway.provisioningKey });
  });
  beforeEach(() => {
    warnings = [];
    provider = createApiKeyProvider({
      createClient: clients.createClient,
      env: { GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: gateway.provisioningKey },
      diagnostics: { warn: (message) => void warnings.push(message) },
    });
  });
  afterEach(() => provider.close());
  afterAll(async () => {
    await owner.close();
    await clients.close();
    await gateway.stop();
  });

  let resources = 0;
  /** The checked inputs of a new resource with its own URN. */
  const newResource = (extra: Record<string, unknown> = {}) =>
    ApiKeyInputs.parse({ name: `key ${++resources}`, clientReference: `urn:pulumi:test::create::pulumi-nodejs:dynamic/gateway:ApiKey::k${resources}`, ...extra });

  const liveKeysNamed = async (name: string) => {
    const found = [];
    for await (const key of owner.apiKeys.list({ limit: 100 })) if (key.name === name && key.state !== "revoked") found.push(key);
    return found;
  };
  const outs = (result: { outs?: StoredKey }) => result.outs!;

  it("stores the resource's URN on the key as its client reference", async () => {
    const desired = newResource();
    const created = await provider.create(desired);
    expect((await owner.apiKeys.get(created.id)).clientReference).toBe(desired.clientReference);
  });

  it("run again after the first answer was lost, gets that key and its secret back: no second key, no rotation", async () => {
    const desired = newResource();
    const first = await provider.create(desired);
    const before = clients.requests.length;
    const again = await createApiKeyProvider({ createClient: clients.createClient, env: { GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: gateway.provisioningKey } }).create(desired);
    expect(again.id).toBe(first.id);
    expect(outs(again).secret).toBe(outs(first).secret);
    expect(clients.requests.slice(before)).toEqual(["POST /v1/account/api-keys", `GET /v1/account/api-keys/${first.id}`]);
    expect(await liveKeysNamed(desired.name)).toHaveLength(1);
  });

  it("run again after the gateway forgot the answer, takes the live key over and rotates it, with a warning", async () => {
    const desired = newResource({ spendPolicy: { limitUnits: "5" } });
    const first = await provider.create(desired);
    passed += 25 * 3_600_000;
    // The program changed meanwhile: the key is brought to it, then rotated.
    const changed = { ...desired, spendPolicy: { limitUnits: "7", currency: "unit" as const, resetPeriod: "never" as const } };
    const before = clients.requests.length;
    const taken = await provider.create(changed);
    expect(taken.id).toBe(first.id);
    expect(outs(taken)).toMatchObject({ secretKnown: true, spendPolicy: { limitUnits: "7" }, version: 3 });
    expect(outs(taken).secret).not.toBe(outs(first).secret);
    expect(clients.requests.slice(before)).toEqual([
      "POST /v1/account/api-keys",
      `GET /v1/account/api-keys/${first.id}`,
      `PATCH /v1/account/api-keys/${first.id}`,
      `POST /v1/account/api-keys/${first.id}/rotate`,
    ]);
    expect(warnings).toEqual([
      `key "${desired.name}": an earlier \`pulumi up\` was interrupted after the gateway created key ${first.id} for this resource; ` +
        "this update took that key over and rotated its secret, which never reached the stack. No second key was made.",
    ]);
    expect(await liveKeysNamed(desired.name)).toHaveLength(1);
  });

  it("after a destroy, makes a new key even while the first create's answer is still replayed", async () => {
    const desired = newResource();
    const first = await provider.create(desired);
    await provider.delete(first.id, outs(first));
    const second = await provider.create(desired);
    expect(second.id).not.toBe(first.id);
    expect(await liveKeysNamed(desired.name)).toHaveLength(1);
    // And again: the chain of replays is followed, never a revoked key handed back.
    await provider.delete(second.id, outs(second));
    const third = await provider.create(desired);
    expect([first.id, second.id]).not.toContain(third.id);
    expect((await liveKeysNamed(desired.name)).map((key) => key.keyId)).toEqual([third.id]);
  });

  it("on a gateway without client_reference, creates without it and still replays a repeated create", async () => {
    const seedOnly = await startSeedOnlyGateway(gateway.baseUrl);
    const onSeed = createApiKeyProvider({ createClient: clients.createClient, env: { GATEWAY_BASE_URL: seedOnly.baseUrl, GATEWAY_PROVISIONING_KEY: gateway.provisioningKey } });
    try {
      const desired = newResource();
      const first = await onSeed.create(desired);
      const again = await onSeed.create(desired);
      expect(again.id).toBe(first.id);
      expect((await owner.apiKeys.get(first.id)).clientReference).toBeNull();
      expect(await liveKeysNamed(desired.name)).toHaveLength(1);
    } finally {
      await onSeed.close();
      await seedOnly.close();
    }
  });

  it(`gives each gateway call ${DEFAULT_TIMEOUT_SECONDS} s by default, and the configured gateway:requestTimeout otherwise`, async () => {
    const seen: Connection[] = [];
    const recording = (env: Record<string, string>) =>
      createApiKeyProvider({
        env: { GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: gateway.provisioningKey, ...env },
        createClient: (connection) => {
          seen.push(connection);
          return clients.createClient(connection);
        },
      });
    const byDefault = recording({});
    await byDefault.create(newResource());
    const configured = recording({});
    await configured.configure({ config: { get: (key: string) => (key === "gateway:requestTimeout" ? "7" : undefined), require: () => "" } });
    await configured.create(newResource());
    const fromEnvironment = recording({ GATEWAY_REQUEST_TIMEOUT: "12" });
    await fromEnvironment.create(newResource());
    expect(seen.map((connection) => connection.timeoutMs)).toEqual([30_000, 7_000, 12_000]);
    const invalid = recording({ GATEWAY_REQUEST_TIMEOUT: "0" });
    expect((await invalid.check({}, { name: "x" })).failures).toEqual([
      { property: "", reason: "gateway:requestTimeout (or GATEWAY_REQUEST_TIMEOUT): expected a whole number of seconds from 1 to 300" },
    ]);
    await Promise.all([byDefault.close(), configured.close(), fromEnvironment.close(), invalid.close()]);
  });
});
