import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { GatewayClient } from "@gateway-keys/sdk";
import { findLeaks, listFiles, REPO_ROOT } from "@gateway-keys/testkit/engine";
import { useKeyTestEnvironment } from "./fixture";
import { installPlugin } from "./support/native-plugin";
import { buildRelease, discardRelease, npmInstall, type Release } from "./support/outside-project";
import { makeVenv, pulumiPython, pulumiPythonOk } from "./support/python";

const run = promisify(execFile);

const EXAMPLE_DIR = join(REPO_ROOT, "examples/python");
const SDK_DIR = join(REPO_ROOT, "provider/sdk/python");
/** A secret of a regular key, as the contract formats one (gwk_ + 32 + 6 base62 characters). */
const REGULAR_SECRET = /gwk_[0-9A-Za-z]{38}/;

describe("the native plugin from Python (pulumi_gatewaykeys)", () => {
  it("the checked-in Python SDK (provider/sdk/python) is what scripts/python-sdk generates from provider/schema.json", async () => {
    const fresh = await mkdtemp(join(tmpdir(), "gatewaykeys-python-sdk-"));
    try {
      await run("bash", [join(REPO_ROOT, "scripts/python-sdk"), fresh], { cwd: REPO_ROOT });
      const [generated, checkedIn] = await Promise.all([filesUnder(fresh), filesUnder(SDK_DIR)]);
      expect(Object.keys(checkedIn).sort()).toEqual(Object.keys(generated).sort());
      for (const [file, content] of Object.entries(generated)) {
        // Stale: run `npm run python-sdk` (after `npm run schema`).
        expect({ file, content: checkedIn[file] }).toEqual({ file, content });
      }
      // Installs offline, the plugin installed beforehand: no download at install, no parver at import.
      expect(generated["setup.py"]).not.toMatch(/plugin install|parver|cmdclass/);
      expect(generated["pulumi_gatewaykeys/_utilities.py"]).toContain('_version_str = "0.1.0"');
      expect(generated["pulumi_gatewaykeys/_utilities.py"]).not.toMatch(/parver|pkg_resources/);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
    // Cold (an empty Go build cache), compiling Pulumi's code generator takes minutes.
  }, 600_000);

  describe("examples/python in a folder outside the repository, on the released wheel", () => {
    const env = useKeyTestEnvironment();
    let release: Release;
    let folder: string;
    let python: string;
    beforeAll(async () => {
      release = await buildRelease();
      folder = await mkdtemp(join(tmpdir(), "gateway-keys-python-"));
      // The user's steps: a venv, `pip install pulumi <wheel>` (here offline), the project's files.
      python = await makeVenv(join(folder, "venv"), [release.pythonWheel]);
      await cp(EXAMPLE_DIR, join(folder, "project"), { recursive: true });
    }, 300_000);
    afterAll(async () => {
      await rm(folder, { recursive: true, force: true });
      await discardRelease(release);
    });
    beforeEach(() => installPlugin(env.sandbox, release.pluginArchive));

    const owner = () => new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });

    /** Every command's output, checked for secrets at the end of each test. */
    let transcript: string[] = [];
    beforeEach(() => void (transcript = []));
    const project = () => join(folder, "project");
    const pulumi = async (...args: string[]) => {
      const output = await pulumiPythonOk(env.sandbox, project(), python, args);
      transcript.push(output);
      return output;
    };
    /** The stack's outputs with secrets shown (the test reads the key's secret to call the gateway with it). */
    const outputs = async (): Promise<Record<string, unknown>> =>
      JSON.parse((await pulumiPythonOk(env.sandbox, project(), python, ["stack", "output", "--json", "--show-secrets"])).replace(/^[^{]*/, ""));

    async function newStack(name: string): Promise<void> {
      await pulumi("stack", "init", name);
      await pulumi("config", "set", "gatewaykeys:baseUrl", env.recorder.baseUrl);
      await pulumi("config", "set", "--secret", "gatewaykeys:provisioningKey", env.gateway.provisioningKey);
    }

    it("creates a key with every policy, names each change in preview --diff, changes it in place, rotates with grace, refuses a stale version, destroys", async () => {
      await newStack("cycle");
      await pulumi("up", "--yes");
      expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual(["POST /v1/account/api-keys"]);
      const created = await outputs();
      const keyId = created.service_key_id as string;
      const firstSecret = created.service_secret as string;
      expect(firstSecret).toMatch(REGULAR_SECRET);
      // A secret output: shown as [secret] without --show-secrets.
      expect(await pulumi("stack", "output", "service_secret")).toContain("[secret]");
      expect(await owner().apiKeys.get(keyId)).toMatchObject({
        version: 1,
        clientReference: "urn:pulumi:cycle::gateway-keys-python::gatewaykeys:index:ApiKey::service",
        spendPolicy: { limitUnits: "100", resetPeriod: "monthly" },
        rateLimitPolicy: { requestsPerMinute: 600, maxConcurrentRequests: 8 },
        modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
        loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 7 },
        labels: { team: "search", env: "cycle" },
        expiresAt: "2099-01-01T00:00:00.000Z",
      });
      expect(await env.statusWith(firstSecret)).toBe(200);
      expect(await env.statusWith(firstSecret, "reverse-1")).toBe(403); // the allow-list reached the gateway

      // A new limit: one in-place PATCH, named in the plan.
      await pulumi("config", "set", "limitUnits", "250.5");
      const changePlan = await pulumi("preview", "--diff");
      expect(changePlan).toMatch(/~ gatewaykeys:index:ApiKey: \(update\)/);
      expect(changePlan).toMatch(/~\s+limitUnits\s*:\s*"100"\s*=>\s*"250.5"/);
      expect(changePlan).toMatch(/~ 1 to update/);
      env.recorder.reset();
      await pulumi("up", "--yes");
      expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual(["PATCH /v1/account/api-keys/{id}"]);
      expect(await outputs()).toMatchObject({ service_key_id: keyId, service_version: 2, service_secret: firstSecret });

      // A rotation on demand, with a grace period: in place, named in the plan; the old secret keeps working.
      await pulumi("config", "set", "rotation", "2");
      const rotationPlan = await pulumi("preview", "--diff");
      expect(rotationPlan).toMatch(/~\s+rotationTrigger\s*:\s*"1"\s*=>\s*"2"/);
      expect(rotationPlan).toMatch(/~ 1 to update/);
      expect(rotationPlan).not.toMatch(/replace/);
      env.recorder.reset();
      await pulumi("up", "--yes");
      expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual(["POST /v1/account/api-keys/{id}/rotate"]);
      const rotated = await outputs();
      const secondSecret = rotated.service_secret as string;
      expect(rotated.service_key_id).toBe(keyId);
      expect(secondSecret).toMatch(REGULAR_SECRET);
      expect(secondSecret).not.toBe(firstSecret);
      expect(await env.statusWith(secondSecret)).toBe(200);
      expect(await env.statusWith(firstSecret)).toBe(200); // within rotationGracePeriod "1h"
      expect((await owner().apiKeys.get(keyId)).previousSecretExpiresAt).toEqual(expect.any(String));

      // Changed outside the stack: the next update is refused, and the outside change kept.
      const live = await owner().apiKeys.get(keyId);
      await owner().apiKeys.update(keyId, { expectedVersion: live.version, name: "changed-outside" });
      await pulumi("config", "set", "limitUnits", "300");
      const stale = await pulumiPython(env.sandbox, project(), python, ["up", "--yes"]);
      transcript.push(stale.output);
      expect(stale.code).not.toBe(0);
      expect(stale.output).toContain(`key ${keyId} changed outside this stack: state has version ${live.version}, the gateway has version ${live.version + 1}`);
      expect(await owner().apiKeys.get(keyId)).toMatchObject({ name: "changed-outside", version: live.version + 1, spendPolicy: { limitUnits: "250.5" } });

      // Refresh, review, update: the program's values win again; then destroy revokes.
      await pulumi("refresh", "--yes");
      await pulumi("up", "--yes");
      expect(await owner().apiKeys.get(keyId)).toMatchObject({ name: "service", spendPolicy: { limitUnits: "300" } });
      env.recorder.reset();
      await pulumi("destroy", "--yes");
      expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual(["POST /v1/account/api-keys/{id}/revoke"]);
      expect(await env.statusWith(secondSecret)).toBe(401);

      await expectNoLeaks({ firstSecret, secondSecret });
    }, 300_000);

    it("imports a key made elsewhere with `pulumi import`; declared in the program, the next preview shows no changes", async () => {
      const { secret, ...made } = await owner().apiKeys.create({ name: "legacy", spendPolicy: { limitUnits: "50" } });
      await newStack("adopt");
      await pulumi("up", "--yes"); // the service key, so the import joins a stack with a key in it
      const imported = await pulumi("import", "gatewaykeys:index:ApiKey", "legacy", made.keyId, "--generate-code=false", "--yes");
      expect(imported).toMatch(/imported key key_\w+: its secret is unknown to the stack/);
      await pulumi("config", "set", "legacyKeyId", made.keyId);
      const plan = await pulumi("preview", "--diff");
      expect(plan).not.toMatch(/to update|to create|to delete|to replace/);
      expect(plan).toMatch(/2 unchanged|3 unchanged/);
      env.recorder.reset();
      await pulumi("up", "--yes");
      expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual([]);
      expect(await outputs()).toMatchObject({ legacy_key_id: made.keyId, legacy_secret_known: false });
      await pulumi("destroy", "--yes");
      expect(await env.statusWith(secret)).toBe(401);
      await expectNoLeaks({ secret });
    }, 300_000);

    it("the released policy pack, unpacked and npm-installed outside the repository, checks this program with its configuration", async () => {
      const pack = join(folder, "policy");
      await run("mkdir", ["-p", pack]);
      await run("tar", ["xzf", release.policyPack, "--strip-components=1", "-C", pack]);
      await npmInstall(pack, []);
      const config = join(folder, "policy-config.json");
      await writeFile(config, JSON.stringify({ "api-key-spend-limit": { maxLimitUnits: 10 } }));
      await newStack("policy");
      const checked = await pulumiPython(env.sandbox, project(), python, ["preview", "--policy-pack", pack, "--policy-pack-config", config]);
      transcript.push(checked.output);
      expect(checked.code).not.toBe(0);
      expect(checked.output).toContain('ApiKey "service": spendPolicy.limitUnits "100" is above the maximum "10": lower it to "10" or less');
      expect(checked.output).toMatch(/\[mandatory\]\s+api-key-spend-limit\s+\(gatewaykeys:index:ApiKey: service\)/);
      expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual([]);
      await expectNoLeaks({});
    }, 300_000);

    /** Nothing secret in what any command printed (the Python program's output included) or on disk. */
    async function expectNoLeaks(secrets: Record<string, string>): Promise<void> {
      const all = { ...secrets, provisioningKey: env.gateway.provisioningKey };
      const said = transcript.join("\n");
      expect(Object.entries(all).filter(([, value]) => said.includes(value)).map(([label]) => label)).toEqual([]);
      expect(said).not.toMatch(REGULAR_SECRET);
      expect(await findLeaks(env.sandbox.backendDir, all)).toEqual([]);
      const stackFiles = (await listFiles(project())).filter((file) => /Pulumi\.[\w-]+\.yaml$/.test(file));
      for (const file of stackFiles) {
        const text = await readFile(file, "utf8");
        expect({ file, leaked: Object.values(all).some((value) => text.includes(value)) }).toEqual({ file, leaked: false });
      }
    }
  });
});

/** Every file under `dir` by its path relative to `dir`, with its text (compiled Python left out). */
async function filesUnder(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const file of await listFiles(dir)) {
    if (!file.includes("__pycache__")) files[relative(dir, file)] = await readFile(file, "utf8");
  }
  return files;
}
