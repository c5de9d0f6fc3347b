import { createApiKeyProvider, createTeamProvider, ApiKeyInputs, TeamInputs, type ApiKeyProvider, type TeamProvider } from "@gateway-keys/provider/runtime";
import { GatewayClient } from "@gateway-keys/sdk";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { countingClients, type CountingClients } from "./support/counting-clients";

/** The Team provider's operations (and a key's `teamId`) called directly against a real gateway over HTTP. */
describe("Team create, update and delete", () => {
  let gateway: TestGateway;
  let clients: CountingClients;
  let teams: TeamProvider;
  let keys: ApiKeyProvider;
  let owner: GatewayClient;
  beforeAll(async () => {
    gateway = await startTestGateway();
    clients = countingClients();
    owner = new GatewayClient({ baseUrl: gateway.baseUrl, provisioningKey: gateway.provisioningKey });
  });
  beforeEach(() => {
    const env = { GATEWAY_BASE_URL: gateway.baseUrl, GATEWAY_PROVISIONING_KEY: gateway.provisioningKey };
    teams = createTeamProvider({ createClient: clients.createClient, env });
    keys = createApiKeyProvider({ createClient: clients.createClient, env });
  });
  afterEach(async () => {
    await teams.close();
    await keys.close();
  });
  afterAll(async () => {
    await owner.close();
    await clients.close();
    await gateway.stop();
  });

  let resources = 0;
  const newTeam = (extra: Record<string, unknown> = {}) =>
    TeamInputs.parse({ name: "search", clientReference: `urn:pulumi:test::teams::pulumi-nodejs:dynamic/gateway:Team::t${++resources}`, ...extra });

  it("creates a team with a daily and a monthly window, reads them back in the windows form, and a repeated create gets the same team", async () => {
    const desired = newTeam({
      spendPolicy: { windows: [{ limitUnits: "1000", resetPeriod: "monthly" }, { limitUnits: "50", resetPeriod: "daily" }] },
      rateLimitPolicy: { requestsPerMinute: 600 },
      budgetAlertThresholds: [0.8, 1],
    });
    // The contract puts the windows in their one order: never, daily, weekly, monthly.
    expect(desired.spendPolicy).toEqual({ currency: "unit", windows: [{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] });
    const created = await teams.create(desired);
    expect(created.id).toMatch(/^team_/);
    expect(created.outs).toMatchObject({ teamId: created.id, version: 1, keyCount: 0, spendPolicy: desired.spendPolicy, rateLimitPolicy: { requestsPerMinute: 600 } });
    expect(created.outs!.spendWindows!.map((window) => [window.resetPeriod, window.limitUnits, window.spentUnits])).toEqual([
      ["daily", "50", "0"],
      ["monthly", "1000", "0"],
    ]);
    // An unchanged program costs nothing: no change, no request.
    const before = clients.requests.length;
    expect(await teams.diff(created.id, created.outs!, desired)).toMatchObject({ changes: false, replaces: [] });
    expect(clients.requests.length).toBe(before);
    const again = await teams.create(desired);
    expect(again.id).toBe(created.id);
    await teams.delete(created.id, created.outs!);
  });

  it("changes the name and a window's limit in place with one PATCH at the state's version, and refuses to overwrite a change made outside", async () => {
    const desired = newTeam({ spendPolicy: { limitUnits: "100", resetPeriod: "monthly" } });
    const { id, outs } = await teams.create(desired);
    const changed = { ...desired, ...newTeam({ name: "search-platform", spendPolicy: { limitUnits: "150", resetPeriod: "monthly" } }), clientReference: desired.clientReference };
    expect(await teams.diff(id, outs!, changed)).toMatchObject({ changes: true, replaces: [] });
    const updated = await teams.update(id, outs!, changed);
    expect(updated.outs).toMatchObject({ teamId: id, version: 2, name: "search-platform", spendPolicy: { limitUnits: "150", resetPeriod: "monthly" } });
    expect(await owner.teams.get(id)).toMatchObject({ version: 2, name: "search-platform" });

    await owner.teams.update(id, { expectedVersion: 2, labels: { owner: "someone" } });
    await expect(teams.update(id, updated.outs!, { ...changed, rateLimitPolicy: { requestsPerMinute: 10 } })).rejects.toThrow(
      `team ${id} changed outside this stack: state has version 2, the gateway has version 3; run \`pulumi refresh\`, review, then \`pulumi up\`. Nothing was overwritten.`,
    );
    const read = await teams.read(id, updated.outs!);
    expect(read.inputs).toMatchObject({ labels: { owner: "someone" } });
    await teams.delete(id, read.props!);
    expect(await teams.read(id, read.props!)).toEqual({});
  });

  it("a key joins with teamId, moves in place with one PATCH, and the team's delete is refused by name while the key is in it", async () => {
    const first = await teams.create(newTeam({ name: "first" }));
    const second = await teams.create(newTeam({ name: "second" }));
    const keyInputs = ApiKeyInputs.parse({ name: "svc", teamId: first.id, clientReference: `urn:pulumi:test::teams::pulumi-nodejs:dynamic/gateway:ApiKey::k${++resources}` });
    const key = await keys.create(keyInputs);
    expect(key.outs).toMatchObject({ teamId: first.id, version: 1 });

    const moved = { ...keyInputs, teamId: second.id };
    expect(await keys.diff(key.id, key.outs!, moved)).toMatchObject({ changes: true, replaces: [] });
    const updated = await keys.update(key.id, key.outs!, moved);
    expect(updated.outs).toMatchObject({ keyId: key.id, teamId: second.id, version: 2 });
    expect(await owner.apiKeys.get(key.id)).toMatchObject({ teamId: second.id });

    const refused = teams.delete(second.id, (await teams.read(second.id, second.outs!)).props!);
    await expect(refused).rejects.toThrow(`could not delete team ${second.id}:`);
    await expect(refused).rejects.toThrow(key.id);
    await expect(refused).rejects.toThrow("nothing was deleted");
    expect(await owner.teams.get(second.id)).toMatchObject({ keyCount: 1 });

    // Left out, the key leaves its team (PATCH teamId null).
    const { teamId: _left, ...alone } = moved;
    const left = await keys.update(key.id, updated.outs!, alone);
    expect(left.outs!.teamId ?? null).toBeNull();
    await teams.delete(second.id, (await teams.read(second.id, second.outs!)).props!);
    await teams.delete(first.id, first.outs!);
    await keys.delete(key.id, left.outs!);
  });
});
