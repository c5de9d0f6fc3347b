import { ApiKey, Team, type SpendPolicyArgs } from "@gateway-keys/provider";
import { GatewayClient, NotFoundError } from "@gateway-keys/sdk";
import { destroy, preview, refresh, up } from "@gateway-keys/testkit/engine";
import { useKeyTestEnvironment } from "./fixture";

/**
 * `Team` and `ApiKey.teamId` through the real engine (the dynamic provider), against a real
 * gateway: one program declares two teams and their keys, changes a team's limit and moves a key
 * between teams in place (the plan names `~ teamId`), adopts a team made outside with `import`,
 * and destroys everything — keys before their teams.
 */
describe("Team and the key's teamId, declared in a Pulumi program", () => {
  const env = useKeyTestEnvironment();
  const client = () => new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });
  /** `METHOD /path` of each mutation the provider sent, ids replaced. */
  const mutations = () =>
    env.recorder
      .calls()
      .filter((call) => !call.startsWith("GET"))
      .map((call) => call.replace(/team_[A-Za-z0-9]+/g, "{team}"))
      .sort();

  it("declares two teams and their keys, changes a team's monthly window and moves a key in place, adopts a team, and destroys", async () => {
    const owner = client();
    const legacy = await owner.teams.create({ name: "legacy", spendPolicy: { limitUnits: "10", resetPeriod: "daily" } });
    let searchMonthly = "1000";
    let batchTeam: "search" | "partners" = "search";
    let adoptLegacy = false;
    const stack = await env.sandbox.inlineStack(
      "teams",
      async () => {
        const searchPolicy: SpendPolicyArgs = {
          windows: [
            { limitUnits: "50", resetPeriod: "daily" },
            { limitUnits: searchMonthly, resetPeriod: "monthly" },
          ],
        };
        const search = new Team("search", { spendPolicy: searchPolicy, rateLimitPolicy: { requestsPerMinute: 600 }, budgetAlertThresholds: [0.8, 1] });
        const partners = new Team("partners", { spendPolicy: { limitUnits: "200", resetPeriod: "monthly" }, modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });
        const teams = { search, partners };
        const api = new ApiKey("search-api", { teamId: search.teamId, spendPolicy: { limitUnits: "20", resetPeriod: "daily" } });
        const batch = new ApiKey("batch", { teamId: teams[batchTeam].teamId });
        const outputs: Record<string, unknown> = { searchId: search.teamId, partnersId: partners.teamId, apiId: api.keyId, batchId: batch.keyId, searchWindows: search.spendWindows };
        if (adoptLegacy) {
          const adopted = new Team("legacy", { name: "legacy", spendPolicy: { limitUnits: "10", resetPeriod: "daily" } }, { import: legacy.teamId });
          outputs.legacyId = adopted.teamId;
        }
        return outputs;
      },
      env.stackConfig(),
    );

    const created = await up(stack);
    const out = (name: string) => created.result.outputs[name]!.value as string;
    const [searchId, partnersId, apiId, batchId] = [out("searchId"), out("partnersId"), out("apiId"), out("batchId")];
    expect(await owner.teams.get(searchId)).toMatchObject({
      name: "search",
      version: 1,
      keyCount: 2,
      spendPolicy: { currency: "unit", windows: [{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] },
      rateLimitPolicy: { requestsPerMinute: 600 },
      budgetAlertThresholds: [0.8, 1],
    });
    expect(await owner.teams.get(partnersId)).toMatchObject({ name: "partners", keyCount: 0, modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });
    expect(await owner.apiKeys.get(apiId)).toMatchObject({ teamId: searchId });
    expect(await owner.apiKeys.get(batchId)).toMatchObject({ teamId: searchId });
    const windows = created.result.outputs.searchWindows!.value as { resetPeriod: string; limitUnits: string }[];
    expect(windows.map((window) => [window.resetPeriod, window.limitUnits])).toEqual([["daily", "50"], ["monthly", "1000"]]);
    await preview(stack, { expectNoChanges: true });
    await refresh(stack, { expectNoChanges: true });

    // The monthly window's limit and the batch key's team change; the legacy team is adopted. Two
    // in-place updates, one PATCH each; the adoption sends nothing.
    searchMonthly = "1500";
    batchTeam = "partners";
    adoptLegacy = true;
    const plan = await preview(stack);
    expect(plan.result.changeSummary).toMatchObject({ update: 2, create: 1 });
    expect(plan.result.changeSummary.replace ?? 0).toBe(0);
    expect(plan.output).toMatch(/~\s+teamId\s*:\s*"team_[A-Za-z0-9]+"\s*=>\s*"team_[A-Za-z0-9]+"/);
    expect(plan.output).toMatch(/~\s+limitUnits\s*:\s*"1000"\s*=>\s*"1500"/);
    env.recorder.reset();
    const changed = await up(stack);
    expect(mutations()).toEqual(["PATCH /v1/account/api-keys/{id}", "PATCH /v1/account/teams/{team}"]);
    expect(changed.result.outputs.searchId!.value).toBe(searchId);
    expect(changed.result.outputs.legacyId!.value).toBe(legacy.teamId);
    expect(await owner.teams.get(searchId)).toMatchObject({ version: 2, keyCount: 1, spendPolicy: { windows: [{ limitUnits: "50" }, { limitUnits: "1500" }] } });
    expect(await owner.apiKeys.get(batchId)).toMatchObject({ teamId: partnersId, version: 2 });
    expect(await owner.teams.get(partnersId)).toMatchObject({ keyCount: 1 });
    await preview(stack, { expectNoChanges: true });

    await destroy(stack);
    for (const teamId of [searchId, partnersId, legacy.teamId]) await expect(owner.teams.get(teamId)).rejects.toBeInstanceOf(NotFoundError);
    expect(await owner.apiKeys.get(apiId)).toMatchObject({ state: "revoked" });
    await owner.close();
  });
});
