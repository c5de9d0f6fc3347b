import { ApiKeyInputs, createApiKeyProvider, type ApiKeyProvider, type StoredKey } from "@gateway-keys/provider/runtime";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";

/** `diff` called directly on a key whose previous secret a client still uses: the warning, and when it is said. */
describe("ApiKey diff and a previous secret still in use", () => {
  let gateway: TestGateway;
  let provider: ApiKeyProvider;
  const warnings: { message: string; urn?: string }[] = [];
  beforeAll(async () => {
    gateway = await startTestGateway({ secretUse: { flushIntervalMs: 60_000 } });
    provider = createApiKeyProvider({
      env: { GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: gateway.provisioningKey },
      diagnostics: { warn: (message, urn) => void warnings.push({ message, urn }) },
    });
  });
  afterAll(async () => {
    await provider.close();
    await gateway.stop();
  });

  async function callAs(userAgent: string, secret: string): Promise<number> {
    const response = await fetch(`${gateway.baseUrl}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "user-agent": userAgent },
      body: JSON.stringify({ model: "echo-1", input: "ping" }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** A key created and rotated once with a grace; its first secret, and its state after the rotation. */
  async function rotatedKey(): Promise<{ first: string; stored: StoredKey; rotate: (trigger: string) => ReturnType<ApiKeyProvider["diff"]> }> {
    const desired = ApiKeyInputs.parse({ name: "ci", rotationTrigger: "1", rotationGracePeriod: "1h", clientReference: "urn:pulumi:test::p::gateway:ApiKey::ci" });
    const created = await provider.create(desired);
    const first = created.outs!.secret!;
    const updated = await provider.update(created.id, created.outs!, { ...desired, rotationTrigger: "2" });
    const stored = updated.outs!;
    return { first, stored, rotate: (trigger) => provider.diff(created.id, stored, { ...desired, rotationTrigger: trigger }) };
  }

  it("warns, naming the client, when a rotation would end a previous secret used since the last refresh", async () => {
    const { first, stored, rotate } = await rotatedKey();
    expect(stored.previousSecret).toMatchObject({ requestsSinceRotation: 0 });
    expect(await callAs("billing-service/1.0", first)).toBe(200);
    await gateway.gateway.app.gateway.flushSecretUse();
    warnings.length = 0;
    expect(await rotate("3")).toMatchObject({ changes: true, replaces: [] });
    expect(warnings).toEqual([
      {
        message: expect.stringContaining(`key ${stored.keyId}: this update rotates the key while its previous secret (${stored.previousSecret!.hint}) is still in use`),
        urn: "urn:pulumi:test::p::gateway:ApiKey::ci",
      },
    ]);
    expect(warnings[0]!.message).toMatch(/by "billing-service\/1\.0" from [^ ]+ \(last seen [^,]+, 1 requests\)/);
  });

  it("says nothing when the previous secret went unused, or when the program does not rotate", async () => {
    const { stored, rotate } = await rotatedKey();
    warnings.length = 0;
    await rotate("3");
    expect(await rotate("2")).toMatchObject({ changes: false });
    expect(warnings).toEqual([]);
  });
});
