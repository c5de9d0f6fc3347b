import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayClient, NotFoundError } from "@gateway-keys/sdk";
import { findLeaks, REPO_ROOT } from "@gateway-keys/testkit/engine";
import { useKeyTestEnvironment } from "./fixture";
import { buildPluginArchive, installPlugin } from "./support/native-plugin";
import { pulumiPython, pulumiPythonOk } from "./support/python";

/**
 * `gatewaykeys:index:Team` and `ApiKey.team_id` from Python (the checked-in SDK, provider/sdk/python)
 * through the real CLI and the native plugin, against a real gateway: two teams with their keys, a
 * team's limit changed and a key moved between teams in place (`~ teamId` in `preview --diff`), a
 * team made elsewhere imported with `pulumi import`, and destroy.
 */
const PROGRAM = `import pulumi
import pulumi_gatewaykeys as gatewaykeys

config = pulumi.Config()
search = gatewaykeys.Team("search", spend_policy={
    "windows": [{"limit_units": "50", "reset_period": "daily"}, {"limit_units": config.get("monthly") or "1000", "reset_period": "monthly"}],
}, rate_limit_policy={"requests_per_minute": 600})
partners = gatewaykeys.Team("partners", spend_policy={"limit_units": "200", "reset_period": "monthly"})
teams = {"search": search, "partners": partners}
key = gatewaykeys.ApiKey("batch", team_id=teams[config.get("batchTeam") or "search"].team_id)
legacy_id = config.get("legacyTeamId")
if legacy_id:
    gatewaykeys.Team("legacy", name="legacy", spend_policy={"limit_units": "10", "reset_period": "daily"})
pulumi.export("search_id", search.team_id)
pulumi.export("partners_id", partners.team_id)
pulumi.export("batch_id", key.key_id)
pulumi.export("search_windows", search.spend_windows)
`;

describe("the native plugin's Team from Python (pulumi_gatewaykeys)", () => {
  const env = useKeyTestEnvironment();
  let archive: string;
  let folder: string;
  beforeAll(async () => {
    archive = await buildPluginArchive();
    folder = await mkdtemp(join(tmpdir(), "gateway-keys-team-python-"));
  }, 120_000);
  afterAll(() => rm(folder, { recursive: true, force: true }));
  beforeEach(() => installPlugin(env.sandbox, archive));

  const python = () => process.env.PULUMI_PYTHON_CMD ?? "(PULUMI_PYTHON_CMD unset: run the tests through scripts/run)";
  const sdkPath = { PYTHONPATH: join(REPO_ROOT, "provider/sdk/python"), PYTHONDONTWRITEBYTECODE: "1" };
  const transcript: string[] = [];
  const pulumi = async (dir: string, ...args: string[]) => {
    const ran = await pulumiPython(env.sandbox, dir, python(), args, sdkPath);
    transcript.push(ran.output);
    if (ran.code !== 0) throw new Error(`pulumi ${args.join(" ")} failed:\n${ran.output}`);
    return ran.output;
  };
  const mutations = () =>
    env.recorder
      .calls()
      .filter((call) => !call.startsWith("GET"))
      .map((call) => call.replace(/team_[A-Za-z0-9]+/g, "{team}"))
      .sort();

  it("declares two teams and a key, changes a window and moves the key in place, imports a team, and destroys", async () => {
    const owner = new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });
    const dir = join(folder, "teams");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "Pulumi.yaml"), "name: gateway-keys-teams-python\nruntime: python\n");
    await writeFile(join(dir, "__main__.py"), PROGRAM);
    await pulumiPythonOk(env.sandbox, dir, python(), ["stack", "init", "teams"]);
    await pulumi(dir, "config", "set", "gatewaykeys:baseUrl", env.recorder.baseUrl);
    await pulumi(dir, "config", "set", "--secret", "gatewaykeys:provisioningKey", env.gateway.provisioningKey);

    await pulumi(dir, "up", "--yes");
    const outputs = async () => JSON.parse((await pulumi(dir, "stack", "output", "--json")).replace(/^[^{]*/, "")) as Record<string, unknown>;
    const created = await outputs();
    const [searchId, partnersId, batchId] = [created.search_id as string, created.partners_id as string, created.batch_id as string];
    expect(await owner.teams.get(searchId)).toMatchObject({
      name: "search",
      keyCount: 1,
      spendPolicy: { windows: [{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] },
      rateLimitPolicy: { requestsPerMinute: 600 },
    });
    expect(await owner.apiKeys.get(batchId)).toMatchObject({ teamId: searchId });
    expect((created.search_windows as { resetPeriod?: string; reset_period?: string }[]).length).toBe(2);

    // The monthly window and the key's team change: two in-place updates, named in the plan.
    await pulumi(dir, "config", "set", "monthly", "1500");
    await pulumi(dir, "config", "set", "batchTeam", "partners");
    const plan = await pulumi(dir, "preview", "--diff");
    expect(plan).toMatch(/~\s+teamId\s*:\s*"team_[A-Za-z0-9]+"\s*=>\s*"team_[A-Za-z0-9]+"/);
    expect(plan).toMatch(/~\s+limitUnits\s*:\s*"1000"\s*=>\s*"1500"/);
    expect(plan).toMatch(/~ 2 to update/);
    expect(plan).not.toMatch(/replace/);
    env.recorder.reset();
    await pulumi(dir, "up", "--yes");
    expect(mutations()).toEqual(["PATCH /v1/account/api-keys/{id}", "PATCH /v1/account/teams/{team}"]);
    expect(await owner.apiKeys.get(batchId)).toMatchObject({ teamId: partnersId, version: 2 });
    expect(await owner.teams.get(searchId)).toMatchObject({ version: 2, keyCount: 0, spendPolicy: { windows: [{ limitUnits: "50" }, { limitUnits: "1500" }] } });

    // A team made elsewhere: `pulumi import`, then declared in the program; the next preview shows no change.
    const legacy = await owner.teams.create({ name: "legacy", spendPolicy: { limitUnits: "10", resetPeriod: "daily" } });
    const imported = await pulumi(dir, "import", "gatewaykeys:index:Team", "legacy", legacy.teamId, "--generate-code=false", "--yes");
    expect(imported).toContain('new native.Team("legacy"');
    await pulumi(dir, "config", "set", "legacyTeamId", legacy.teamId);
    const settled = await pulumi(dir, "preview", "--diff");
    expect(settled).not.toMatch(/to update|to create|to delete|to replace/);
    env.recorder.reset();
    await pulumi(dir, "up", "--yes");
    expect(mutations()).toEqual([]);

    await pulumi(dir, "destroy", "--yes");
    for (const teamId of [searchId, partnersId, legacy.teamId]) await expect(owner.teams.get(teamId)).rejects.toBeInstanceOf(NotFoundError);
    expect(await owner.apiKeys.get(batchId)).toMatchObject({ state: "revoked" });
    await owner.close();
    expect(transcript.join("\n")).not.toContain(env.gateway.provisioningKey);
    expect(await findLeaks(env.sandbox.backendDir, { provisioningKey: env.gateway.provisioningKey })).toEqual([]);
  }, 300_000);
});
