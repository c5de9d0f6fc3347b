import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiKey, Team, type ApiKeyArgs } from "@gateway-keys/provider";
import { expectEngineFailure, preview, REPO_ROOT, up } from "@gateway-keys/testkit/engine";
import { useKeyTestEnvironment } from "./fixture";
import { buildPluginArchive, installPlugin } from "./support/native-plugin";
import { pulumiPython, pulumiPythonOk } from "./support/python";

/**
 * policy/ through the real engine: `pulumi preview --policy-pack policy/` (and `up`) on TypeScript
 * programs (the dynamic ApiKey, through the Automation API) and Python programs (the native
 * gatewaykeys:index:ApiKey, through the CLI on a project folder).
 */
const POLICY_DIR = join(REPO_ROOT, "policy");

/** What each mandatory rule says of a key that sets nothing (the provider's check has filled in modelPolicy's default, mode "all"). */
const MANDATORY_MESSAGES = (name: string) => [
  `ApiKey "${name}": spendPolicy is missing: set spendPolicy with a limitUnits`,
  `ApiKey "${name}": rotateAfter is missing: set rotateAfter to "90d" or less`,
  `ApiKey "${name}": modelPolicy mode "all" lets the key call every model on stack`,
  `ApiKey "${name}": labels lack "team": add team: "..." to labels`,
];

describe("the policy pack policy/", () => {
  it("knows both ApiKey type tokens the provider registers (dynamic and native)", () => {
    const pack = require(join(POLICY_DIR, "dist/resources.js"));
    expect(pack.DYNAMIC_API_KEY_TYPE).toBe(require(join(REPO_ROOT, "provider/dist/provider-module.js")).API_KEY_TYPE);
    expect(pack.NATIVE_API_KEY_TYPE).toBe(require(join(REPO_ROOT, "provider/dist/native/schema.js")).NATIVE_API_KEY_TYPE);
  });

  describe("on TypeScript programs (the dynamic ApiKey)", () => {
    const env = useKeyTestEnvironment();
    const stackOf = (keys: Record<string, ApiKeyArgs>) =>
      env.sandbox.inlineStack(
        "policy-keys",
        async () => {
          for (const [name, args] of Object.entries(keys)) new ApiKey(name, args);
        },
        env.stackConfig(),
      );

    it("fails preview and up of a key breaking every mandatory rule, each message naming the key, the field and the fix; nothing is created", async () => {
      const stack = await stackOf({ bare: {} });
      const failed = await expectEngineFailure(preview(stack, { policyPacks: [POLICY_DIR] }));
      const said = failed.stdout + failed.stderr;
      for (const message of MANDATORY_MESSAGES("bare")) expect(said).toContain(message);
      expect(said).toMatch(/\[mandatory\]\s+api-key-spend-limit/);

      const refused = await expectEngineFailure(up(stack, { policyPacks: [POLICY_DIR] }));
      expect(refused.stdout + refused.stderr).toContain(MANDATORY_MESSAGES("bare")[0]);
      expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual([]);
    });

    it("passes a compliant key, warning about the advisory rules it breaks", async () => {
      const stack = await stackOf({
        compliant: {
          spendPolicy: { limitUnits: "100" },
          rotateAfter: "30d",
          modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
          labels: { team: "search" },
        },
      });
      const passed = await preview(stack, { policyPacks: [POLICY_DIR] });
      expect(passed.output).toMatch(/\[advisory\]\s+api-key-expiry/);
      expect(passed.output).toContain('ApiKey "compliant": expiresAt is missing');
      expect(passed.output).toMatch(/\[advisory\]\s+api-key-rate-limit/);
      expect(passed.output).not.toContain("[mandatory]");
    });

    it("takes its settings from --policy-pack-config: maxima, the stacks that need an allow-list, each rule's level", async () => {
      const config = join(await mkdtemp(join(tmpdir(), "gateway-keys-policy-")), "config.json");
      await writeFile(
        config,
        JSON.stringify({
          "api-key-spend-limit": { maxLimitUnits: 50 },
          "api-key-rotation": { maxDays: 7 },
          "api-key-model-allow-list": { stacks: ["prod"] },
          "api-key-expiry": { enforcementLevel: "disabled" },
          "api-key-rate-limit": { enforcementLevel: "mandatory", maxRequestsPerMinute: 100 },
          "api-key-required-labels": { labels: ["team", "cost-center"] },
        }),
      );
      try {
        const stack = await stackOf({
          wide: { spendPolicy: { limitUnits: "100" }, rotateAfter: "30d", labels: { team: "search" }, rateLimitPolicy: { requestsPerMinute: 600 } },
        });
        const failed = await expectEngineFailure(preview(stack, { policyPacks: [POLICY_DIR], policyPackConfigs: [config] }));
        const said = failed.stdout + failed.stderr;
        expect(said).toContain('ApiKey "wide": spendPolicy.limitUnits "100" is above the maximum "50": lower it to "50" or less');
        expect(said).toContain('ApiKey "wide": rotateAfter "30d" is longer than 7 days: set it to "7d" or less');
        expect(said).toContain('ApiKey "wide": rateLimitPolicy.requestsPerMinute 600 is not within the maximum 100: set it to 100 or less');
        expect(said).toMatch(/\[mandatory\]\s+api-key-rate-limit/);
        expect(said).toContain('ApiKey "wide": labels lack "cost-center"');
        // The stack is not "prod", and expiry is disabled.
        expect(said).not.toContain("api-key-model-allow-list");
        expect(said).not.toContain("api-key-expiry");
      } finally {
        await rm(join(config, ".."), { recursive: true, force: true });
      }
    });
  });

  describe("on teams (the dynamic Team and a key's teamId)", () => {
    const env = useKeyTestEnvironment();

    it("requires every team to have a spend limit, each window under maxLimitUnits, and every key on the chosen stacks to belong to a team", async () => {
      const config = join(await mkdtemp(join(tmpdir(), "gateway-keys-policy-")), "config.json");
      // The sandbox's first stack is "e2e-1": the stack the team rule is chosen for.
      await writeFile(
        config,
        JSON.stringify({
          "api-key-team": { stacks: ["e2e-1"] },
          "team-spend-limit": { maxLimitUnits: 500 },
          "api-key-rotation": { enforcementLevel: "disabled" },
          "api-key-model-allow-list": { enforcementLevel: "disabled" },
          "api-key-required-labels": { enforcementLevel: "disabled" },
        }),
      );
      try {
        const stack = await env.sandbox.inlineStack(
          "policy-teams",
          async () => {
            new Team("unbudgeted", {});
            new Team("wide", { spendPolicy: { windows: [{ limitUnits: "50", resetPeriod: "daily" }, { limitUnits: "1000", resetPeriod: "monthly" }] } });
            // A spend policy in the windows form satisfies api-key-spend-limit; the key names no team.
            new ApiKey("loner", { spendPolicy: { windows: [{ limitUnits: "5", resetPeriod: "daily" }, { limitUnits: "50", resetPeriod: "monthly" }] } });
          },
          env.stackConfig(),
        );
        const failed = await expectEngineFailure(preview(stack, { policyPacks: [POLICY_DIR], policyPackConfigs: [config] }));
        const said = failed.stdout + failed.stderr;
        expect(said).toContain('Team "unbudgeted": spendPolicy is missing: set spendPolicy with a limitUnits of at most "500", or windows of them');
        expect(said).toContain(`Team "wide": spendPolicy's monthly window limitUnits "1000" is above the maximum "500": lower it to "500" or less`);
        expect(said).not.toContain('Team "wide": spendPolicy\'s daily window');
        expect(said).toContain('ApiKey "loner": teamId is missing on stack "e2e-1": set teamId to a Team\'s teamId');
        expect(said).toMatch(/\[mandatory\]\s+team-spend-limit/);
        expect(said).toMatch(/\[mandatory\]\s+api-key-team/);
        expect(said).not.toContain('ApiKey "loner": spendPolicy is missing');
        expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual([]);
      } finally {
        await rm(join(config, ".."), { recursive: true, force: true });
      }
    });

    it("passes a team with a spend limit and its member key on a stack no rule chose", async () => {
      const stack = await env.sandbox.inlineStack(
        "policy-teams-ok",
        async () => {
          const search = new Team("search", { spendPolicy: { limitUnits: "100", resetPeriod: "monthly" } });
          new ApiKey("member", { teamId: search.teamId, spendPolicy: { limitUnits: "10" }, rotateAfter: "30d", modelPolicy: { mode: "allowList", modelIds: ["echo-1"] }, labels: { team: "search" } });
        },
        env.stackConfig(),
      );
      // No stack chosen (the default): a key without a team would pass too; this one names the team.
      const passed = await preview(stack, { policyPacks: [POLICY_DIR] });
      expect(passed.output).not.toContain("[mandatory]");
      expect(passed.output).not.toContain("team-spend-limit");
    });
  });

  describe("on Python programs (the native gatewaykeys:index:ApiKey)", () => {
    const env = useKeyTestEnvironment();
    let archive: string;
    let folder: string;
    beforeAll(async () => {
      archive = await buildPluginArchive();
      folder = await mkdtemp(join(tmpdir(), "gateway-keys-policy-python-"));
    }, 120_000);
    afterAll(() => rm(folder, { recursive: true, force: true }));
    beforeEach(() => installPlugin(env.sandbox, archive));

    /** The setup's venv with the checked-in SDK on PYTHONPATH (the released wheel is native-python.test.ts's). */
    const python = () => process.env.PULUMI_PYTHON_CMD ?? "(PULUMI_PYTHON_CMD unset: run the tests through scripts/run)";
    const sdkPath = { PYTHONPATH: join(REPO_ROOT, "provider/sdk/python"), PYTHONDONTWRITEBYTECODE: "1" };

    async function pythonProject(name: string, program: string): Promise<string> {
      const dir = join(folder, name);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir);
      await writeFile(join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: python\n`);
      await writeFile(join(dir, "__main__.py"), program);
      await newStack(dir);
      return dir;
    }

    async function newStack(dir: string): Promise<void> {
      await pulumiPythonOk(env.sandbox, dir, python(), ["stack", "init", "policy"]);
      await pulumiPythonOk(env.sandbox, dir, python(), ["config", "set", "gatewaykeys:baseUrl", env.recorder.baseUrl]);
      await pulumiPythonOk(env.sandbox, dir, python(), ["config", "set", "--secret", "gatewaykeys:provisioningKey", env.gateway.provisioningKey]);
    }

    it("fails the preview of a Python key breaking every mandatory rule, with each rule's message", async () => {
      const dir = await pythonProject("bare-python", 'import pulumi_gatewaykeys as gatewaykeys\n\ngatewaykeys.ApiKey("bare")\n');
      const result = await pulumiPython(env.sandbox, dir, python(), ["preview", "--policy-pack", POLICY_DIR], sdkPath);
      expect(result.code).not.toBe(0);
      for (const message of MANDATORY_MESSAGES("bare")) expect(result.output).toContain(message);
      expect(result.output).toMatch(/\[mandatory\]\s+api-key-spend-limit\s+\(gatewaykeys:index:ApiKey: bare\)/);
      expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual([]);
    });

    it("passes examples/python, whose key sets every policy", async () => {
      const dir = join(folder, "example");
      await cp(join(REPO_ROOT, "examples/python"), dir, { recursive: true });
      await newStack(dir);
      const result = await pulumiPython(env.sandbox, dir, python(), ["preview", "--policy-pack", POLICY_DIR], sdkPath);
      expect(result).toMatchObject({ code: 0 });
      expect(result.output).toMatch(/Policies:\s+✅ gateway-keys@v0\.1\.0/);
      expect(result.output).not.toMatch(/\[(mandatory|advisory)\]/);
    });
  });
});
