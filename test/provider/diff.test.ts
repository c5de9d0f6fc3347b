import { hintOf, spendWindowsOf } from "@gateway-keys/contract";
import {
  ApiKeyInputs,
  createApiKeyProvider,
  UNKNOWN,
  type ApiKeyProvider,
  type DesiredKey,
  type PendingInputs,
  type StoredKey,
} from "@gateway-keys/provider/runtime";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { countingClients, type CountingClients } from "./support/counting-clients";

/** `diff` called directly: what changes, what rotates, what replaces, and when the gateway is asked. */
describe("ApiKey diff", () => {
  let gateway: TestGateway;
  let clients: CountingClients;
  let provider: ApiKeyProvider;
  beforeAll(async () => {
    gateway = await startTestGateway();
    clients = countingClients();
    provider = createApiKeyProvider({ createClient: clients.createClient, env: {} });
    await provider.configure({
      config: {
        get: (key: string) => ({ "gateway:baseUrl": gateway.baseUrl, "gateway:provisioningKey": gateway.provisioningKey })[key],
        require: () => "",
      },
    });
  });
  afterAll(async () => {
    await provider.close();
    await clients.close();
    await gateway.stop();
  });

  /** What `create` or `update` recorded in state. */
  function recorded(result: { outs?: StoredKey }): StoredKey {
    if (!result.outs) throw new Error("the operation recorded no outputs");
    return result.outs;
  }

  /** A key created from a program, and the program's inputs as `check` leaves them. */
  async function storedKey(): Promise<{ id: string; stored: StoredKey; desired: DesiredKey }> {
    const desired = ApiKeyInputs.parse({ name: "ci", spendPolicy: { limitUnits: "10" }, rotationTrigger: "a" });
    const created = await provider.create(desired);
    return { id: created.id, stored: recorded(created), desired };
  }

  it("reports no change for the same program", async () => {
    const { id, stored, desired } = await storedKey();
    expect(await provider.diff(id, stored, desired)).toMatchObject({ changes: false, replaces: [] });
  });

  it("reports no change for a state written before key policies (no resetPeriod, labels, expiry or rate limits in it)", async () => {
    const { id, stored, desired } = await storedKey();
    const { labels: _labels, expired: _expired, ...older } = stored;
    const [window] = spendWindowsOf(stored.spendPolicy);
    const olderState = { ...older, spendPolicy: { limitUnits: window!.limitUnits, currency: stored.spendPolicy!.currency } } as StoredKey;
    expect(await provider.diff(id, olderState, desired)).toMatchObject({ changes: false, replaces: [] });
    // And a real change is still one.
    expect(await provider.diff(id, olderState, { ...desired, labels: { team: "a" } })).toMatchObject({ changes: true });
  });

  it("asks the gateway nothing about an unchanged program", async () => {
    const { id, stored, desired } = await storedKey();
    const before = clients.requests.length;
    await provider.diff(id, stored, desired);
    expect(clients.requests.slice(before)).toEqual([]);
  });

  it("updates in place for a policy change and for a new rotation trigger", async () => {
    const { id, stored, desired } = await storedKey();
    const policy = await provider.diff(id, stored, { ...desired, spendPolicy: { limitUnits: "20", currency: "unit" } });
    expect(policy).toMatchObject({ changes: true, replaces: [] });
    const rotation = await provider.diff(id, stored, { ...desired, rotationTrigger: "b" });
    expect(rotation).toMatchObject({ changes: true, replaces: [] });
  });

  it("replaces a key that holds its own credentials when it moves to another gateway", async () => {
    const { id, stored, desired } = await storedKey();
    const withOwnConnection = { ...stored, connection: { provisioningKey: gateway.provisioningKey } };
    const moved = await provider.diff(id, withOwnConnection, { ...desired, connection: { baseUrl: "http://127.0.0.1:9" } });
    expect(moved).toMatchObject({ changes: true, replaces: ["connection"] });
    const sameGateway = await provider.diff(id, stored, { ...desired, connection: { baseUrl: `${gateway.baseUrl}/` } });
    expect(sameGateway.replaces).toEqual([]);
  });

  it("refuses to move a key whose credentials came from config, since nothing could revoke the old one", async () => {
    const { id, stored, desired } = await storedKey();
    await expect(provider.diff(id, stored, { ...desired, connection: { baseUrl: "http://127.0.0.1:9" } })).rejects.toThrow(
      /lives on .*, but the gateway configured now is http:\/\/127\.0\.0\.1:9.*Nothing was changed/,
    );
  });

  it("refuses a replacement while the program still adopts the key", async () => {
    const { id, stored, desired } = await storedKey();
    const withOwnConnection = { ...stored, connection: { provisioningKey: gateway.provisioningKey } };
    const adopted = { ...desired, adoptKeyId: id, connection: { baseUrl: "http://127.0.0.1:9" } };
    await expect(provider.diff(id, withOwnConnection, adopted)).rejects.toThrow(/still adopts it/);
  });

  it("plans a replacement while the connection is not known yet", async () => {
    const { id, stored, desired } = await storedKey();
    const pending: PendingInputs = { ...desired, connection: UNKNOWN };
    expect(await provider.diff(id, stored, pending)).toMatchObject({ changes: true, replaces: ["connection"] });
  });

  it("replaces a key whose own connection moves to another owner, and refuses a configured key of another owner", async () => {
    const otherOwner = await gateway.newProvisioningKey("other-owner");
    const { id, stored, desired } = await storedKey();
    await expect(provider.diff(id, stored, { ...desired, connection: { provisioningKey: otherOwner } })).rejects.toThrow(
      /belongs to owner test-owner, but the provisioning key configured for .* belongs to owner other-owner; nothing was changed/,
    );
    const withOwnConnection = { ...stored, connection: { provisioningKey: gateway.provisioningKey } };
    const moved = await provider.diff(id, withOwnConnection, { ...desired, connection: { provisioningKey: otherOwner } });
    expect(moved).toMatchObject({ changes: true, replaces: ["connection"] });
  });

  it("a new provisioning key of the same owner is a change of connection only", async () => {
    const sameOwner = await gateway.newProvisioningKey("test-owner");
    const { id, stored, desired } = await storedKey();
    const withNewKey: DesiredKey = { ...desired, connection: { provisioningKey: sameOwner } };
    const result = await provider.diff(id, stored, withNewKey);
    expect(result).toMatchObject({ changes: true, replaces: [] });
    const updated = recorded(await provider.update(id, stored, withNewKey));
    expect(updated).toMatchObject({
      version: stored.version,
      connection: { provisioningKey: sameOwner },
      provisioningKeyHint: hintOf(sameOwner),
    });
    // Recorded, the new credential costs nothing more: the same program is no change.
    const again = await provider.diff(id, updated, withNewKey);
    expect(again).toMatchObject({ changes: false });
  });

  it("asks whose a new provisioning key is once, then remembers the answer", async () => {
    const sameOwner = await gateway.newProvisioningKey("test-owner");
    const { id, stored, desired } = await storedKey();
    const withNewKey: DesiredKey = { ...desired, connection: { provisioningKey: sameOwner } };
    const before = clients.requests.length;
    await provider.diff(id, stored, withNewKey);
    await provider.diff(id, stored, withNewKey);
    expect(clients.requests.slice(before)).toEqual(["GET /v1/account/whoami"]);
  });

  it("is no change when only the resource's URN moved (a renamed stack or resource): nothing on the gateway depends on it", async () => {
    const { id, stored, desired } = await storedKey();
    const renamed = await provider.diff(id, stored, { ...desired, clientReference: "urn:pulumi:renamed::p::pulumi-nodejs:dynamic/gateway:ApiKey::ci" });
    expect(renamed).toMatchObject({ changes: false });
  });

  it("updates in place, never replaces, when check planned a scheduled rotation, and sees no change while the schedule is carried", async () => {
    const desired = ApiKeyInputs.parse({
      name: "scheduled",
      rotateAfter: "30d",
      rotation: { issuedAt: "2030-01-01T00:00:00.000Z", reason: "created" },
    });
    const created = await provider.create(desired);
    const stored = recorded(created);
    expect(await provider.diff(created.id, stored, desired)).toMatchObject({ changes: false, replaces: [] });
    const due = { ...desired, rotation: { issuedAt: "2030-01-31T00:00:00.000Z", reason: "scheduled: the secret issued 2030-01-01T00:00:00.000Z reached rotateAfter 30d" } };
    expect(await provider.diff(created.id, stored, due)).toMatchObject({ changes: true, replaces: [] });
    const before = clients.requests.length;
    const rotated = recorded(await provider.update(created.id, stored, due));
    expect(clients.requests.slice(before)).toEqual([`POST /v1/account/api-keys/${created.id}/rotate`]);
    expect(rotated).toMatchObject({ version: 2, secretKnown: true, rotation: due.rotation });
    expect(rotated.secret).not.toBe(stored.secret);
  });
});
