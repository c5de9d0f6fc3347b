import { hintOf } from "@gateway-keys/contract";
import { apiKeyProvider, closeClients } from "@gateway-keys/provider/runtime";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";

/** `diff` called directly: what changes, what rotates, what replaces, and when the gateway is asked. */
describe("ApiKey diff", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
    apiKeyProvider.configure({
      config: {
        get: (key: string) => ({ "gateway:baseUrl": gateway.baseUrl, "gateway:provisioningKey": gateway.provisioningKey })[key],
        require: () => "",
      },
    });
  });
  afterAll(async () => {
    await closeClients();
    await gateway.stop();
  });

  async function storedKey() {
    const desired = (await apiKeyProvider.check({}, { name: "ci", spendPolicy: { limitUnits: "10" }, rotationTrigger: "a" })).inputs;
    const created = await apiKeyProvider.create(desired as never);
    return { id: created.id, stored: created.outs!, desired: desired as Record<string, unknown> };
  }

  it("reports no change for the same program", async () => {
    const { id, stored, desired } = await storedKey();
    expect(await apiKeyProvider.diff(id, stored, desired as never)).toMatchObject({ changes: false, replaces: [] });
  });

  it("updates in place for a policy change and for a new rotation trigger", async () => {
    const { id, stored, desired } = await storedKey();
    const policy = await apiKeyProvider.diff(id, stored, { ...desired, spendPolicy: { limitUnits: "20", currency: "unit" } } as never);
    expect(policy).toMatchObject({ changes: true, replaces: [] });
    const rotation = await apiKeyProvider.diff(id, stored, { ...desired, rotationTrigger: "b" } as never);
    expect(rotation).toMatchObject({ changes: true, replaces: [] });
  });

  it("replaces a key that holds its own credentials when it moves to another gateway", async () => {
    const { id, stored, desired } = await storedKey();
    const withOwnConnection = { ...stored, connection: { provisioningKey: gateway.provisioningKey } };
    const moved = await apiKeyProvider.diff(id, withOwnConnection, { ...desired, connection: { baseUrl: "http://127.0.0.1:9" } } as never);
    expect(moved).toMatchObject({ changes: true, replaces: ["connection"] });
    const sameGateway = await apiKeyProvider.diff(id, stored, { ...desired, connection: { baseUrl: `${gateway.baseUrl}/` } } as never);
    expect(sameGateway.replaces).toEqual([]);
  });

  it("refuses to move a key whose credentials came from config, since nothing could revoke the old one", async () => {
    const { id, stored, desired } = await storedKey();
    await expect(apiKeyProvider.diff(id, stored, { ...desired, connection: { baseUrl: "http://127.0.0.1:9" } } as never)).rejects.toThrow(
      /lives on .*, but the gateway configured now is http:\/\/127\.0\.0\.1:9.*Nothing was changed/,
    );
  });

  it("refuses a replacement while the program still adopts the key", async () => {
    const { id, stored, desired } = await storedKey();
    const withOwnConnection = { ...stored, connection: { provisioningKey: gateway.provisioningKey } };
    const adopted = { ...desired, adoptKeyId: id, connection: { baseUrl: "http://127.0.0.1:9" } };
    await expect(apiKeyProvider.diff(id, withOwnConnection, adopted as never)).rejects.toThrow(/still adopts it/);
  });

  it("plans a replacement while the connection is not known yet", async () => {
    const { id, stored, desired } = await storedKey();
    const unknown = { ...desired, connection: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" };
    expect(await apiKeyProvider.diff(id, stored, unknown as never)).toMatchObject({ changes: true, replaces: ["connection"] });
  });

  it("replaces a key whose own connection moves to another owner, and refuses a configured key of another owner", async () => {
    const otherOwner = await gateway.newProvisioningKey("other-owner");
    const { id, stored, desired } = await storedKey();
    await expect(apiKeyProvider.diff(id, stored, { ...desired, connection: { provisioningKey: otherOwner } } as never)).rejects.toThrow(
      /belongs to owner test-owner, but the provisioning key configured for .* belongs to owner other-owner; nothing was changed/,
    );
    const withOwnConnection = { ...stored, connection: { provisioningKey: gateway.provisioningKey } };
    const moved = await apiKeyProvider.diff(id, withOwnConnection, { ...desired, connection: { provisioningKey: otherOwner } } as never);
    expect(moved).toMatchObject({ changes: true, replaces: ["connection"] });
  });

  it("a new provisioning key of the same owner is a change of connection only", async () => {
    const sameOwner = await gateway.newProvisioningKey("test-owner");
    const { id, stored, desired } = await storedKey();
    const result = await apiKeyProvider.diff(id, stored, { ...desired, connection: { provisioningKey: sameOwner } } as never);
    expect(result).toMatchObject({ changes: true, replaces: [] });
    const updated = await apiKeyProvider.update(id, stored as never, { ...desired, connection: { provisioningKey: sameOwner } } as never);
    expect(updated.outs).toMatchObject({
      version: stored.version,
      connection: { provisioningKey: sameOwner },
      provisioningKeyHint: hintOf(sameOwner),
    });
    // Recorded, the new credential costs nothing more: the same program is no change.
    const again = await apiKeyProvider.diff(id, updated.outs as never, { ...desired, connection: { provisioningKey: sameOwner } } as never);
    expect(again).toMatchObject({ changes: false });
  });
});
