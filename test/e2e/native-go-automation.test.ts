import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { GatewayClient } from "@gateway-keys/sdk";
import { findLeaks, listFiles, REPO_ROOT } from "@gateway-keys/testkit/engine";
import { describeWith } from "../support/needs";
import { useKeyTestEnvironment } from "./fixture";
import { buildPluginArchive, installPlugin } from "./support/native-plugin";

const run = promisify(execFile);


const EXAMPLE_DIR = join(REPO_ROOT, "examples/go-automation");
const SDK_DIR = join(REPO_ROOT, "provider/sdk/go");
/** A secret of a regular key, as the contract formats one (gwk_ + 32 + 6 base62 characters). */
const REGULAR_SECRET = /gwk_[0-9A-Za-z]{38}/;

/**
 * `go` with the module proxy reachable and -trimpath: scripts/setup builds the Pulumi CLI with
 * -trimpath, so the packages this build shares with it (the Pulumi Go SDK, gRPC...) come from the
 * build cache (GOCACHE, outside the clone) even on the first run of a fresh clone.
 */
async function goRun(args: string[], cwd: string, env: Record<string, string> = {}) {
  return run("go", ["run", "-trimpath", ...args], {
    cwd,
    env: { ...process.env, GOFLAGS: "-mod=readonly", ...env },
    maxBuffer: 32 * 1024 * 1024,
  });
}

describeWith("go")("the native plugin from Go", () => {
  it("the checked-in Go SDK (provider/sdk/go) is what scripts/go-sdk generates from provider/schema.json", async () => {
    const fresh = await mkdtemp(join(tmpdir(), "gatewaykeys-go-sdk-"));
    try {
      await run("bash", [join(REPO_ROOT, "scripts/go-sdk"), fresh], { cwd: REPO_ROOT });
      const [generated, checkedIn] = await Promise.all([filesUnder(fresh), filesUnder(SDK_DIR)]);
      expect(Object.keys(checkedIn).sort()).toEqual(Object.keys(generated).sort());
      for (const [file, content] of Object.entries(generated)) {
        // Stale: run `npm run go-sdk` (after `npm run schema`).
        expect({ file, content: checkedIn[file] }).toEqual({ file, content });
      }
      expect(generated["gatewaykeys/pulumi-plugin.json"]).toContain('"version": "0.1.0"');
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
    // Cold (an empty Go build cache), compiling Pulumi's code generator takes minutes.
  }, 600_000);

  describe("examples/go-automation through the Automation API", () => {
    const env = useKeyTestEnvironment();
    let archive: string;
    beforeAll(async () => {
      archive = await buildPluginArchive();
    }, 120_000);

    it("runs up, preview and refresh without changes, destroy: the key is made through the explicit provider, then revoked", async () => {
      await installPlugin(env.sandbox, archive);
      const stackName = "go-e2e";
      const started = Date.now();
      const result = await goRun(["."], EXAMPLE_DIR, {
        ...env.sandbox.env,
        // The CLI from scripts/setup first: the Automation API runs `pulumi` from PATH.
        PATH: `${join(REPO_ROOT, ".toolchain/bin")}:${process.env.PATH}`,
        GATEWAY_BASE_URL: env.recorder.baseUrl,
        GATEWAY_PROVISIONING_KEY: env.gateway.provisioningKey,
        GATEWAY_KEYS_STACK: stackName,
      }).catch((error: { code?: number; stdout?: string; stderr?: string }) => {
        throw new Error(`go run exited with ${error.code}:\n${error.stdout}\n${error.stderr}`);
      });
      console.log(`go run (build and the cycle) took ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const said = result.stdout + result.stderr;

      const created = /created key (key_\w+)/.exec(said)?.[1];
      expect(created).toBeDefined();
      expect(said).toContain(`revoked key ${created}`);
      expect(said.indexOf("== preview (expecting no changes)")).toBeGreaterThan(said.indexOf(`created key ${created}`));
      expect(said.indexOf("== refresh (expecting no changes)")).toBeGreaterThan(said.indexOf("== preview"));

      // Through the account API: the key the program made, with its URN, policies and hint, now revoked.
      const owner = new GatewayClient({ baseUrl: env.gateway.baseUrl, provisioningKey: env.gateway.provisioningKey });
      try {
        const live = await owner.apiKeys.get(created!);
        expect(live).toMatchObject({
          name: "ci",
          state: "revoked",
          clientReference: `urn:pulumi:${stackName}::gatewaykeys-go-automation::gatewaykeys:index:ApiKey::ci`,
          spendPolicy: { limitUnits: "100" },
          modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
        });
        // The `hint` stack output the program printed is the live key's.
        expect(said).toContain(live.hint);
      } finally {
        await owner.close();
      }
      // One create and one revoke: preview and refresh changed nothing.
      expect(env.recorder.calls().filter((call) => !call.startsWith("GET"))).toEqual([
        "POST /v1/account/api-keys",
        "POST /v1/account/api-keys/{id}/revoke",
      ]);

      expect(said).not.toMatch(REGULAR_SECRET);
      expect(said).not.toContain(env.gateway.provisioningKey);
      expect(await findLeaks(env.sandbox.backendDir, { provisioningKey: env.gateway.provisioningKey })).toEqual([]);
      for (const file of await listFiles(env.sandbox.backendDir)) {
        expect({ file, secret: REGULAR_SECRET.test(await readFile(file, "utf8")) }).toEqual({ file, secret: false });
      }
    }, 600_000);
  });
});

/** Every file under `dir` by its path relative to `dir`, with its text. */
async function filesUnder(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const file of await listFiles(dir)) files[relative(dir, file)] = await readFile(file, "utf8");
  return files;
}
