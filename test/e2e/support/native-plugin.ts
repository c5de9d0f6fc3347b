import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT, type EngineSandbox } from "@gateway-keys/testkit/engine";

const run = promisify(execFile);

/** The plugin's version: the provider package's. */
export const PLUGIN_VERSION: string = require(join(REPO_ROOT, "provider/package.json")).version;

/** Builds the plugin archive with scripts/plugin-archive into a temp folder; returns its path. */
export async function buildPluginArchive(): Promise<string> {
  const outdir = await mkdtemp(join(tmpdir(), "gatewaykeys-plugin-"));
  const { stdout } = await run("bash", [join(REPO_ROOT, "scripts/plugin-archive"), outdir], { cwd: REPO_ROOT });
  return stdout.trim().split("\n").pop()!;
}

/**
 * Installs the archive into the sandbox's own, empty PULUMI_HOME, the way a user installs it
 * (`pulumi plugin install resource gatewaykeys <version> --file`), so every engine test of the
 * native plugin runs the bundled archive from outside the repository, never the repo's build.
 */
export async function installPlugin(sandbox: EngineSandbox, archive: string): Promise<void> {
  await pulumiCli(sandbox, ["plugin", "install", "resource", "gatewaykeys", PLUGIN_VERSION, "--file", archive]);
}

/** Runs the real CLI with the sandbox's environment (backend, PULUMI_HOME, passphrase). */
export async function pulumiCli(sandbox: EngineSandbox, args: string[], cwd = REPO_ROOT): Promise<{ stdout: string; stderr: string }> {
  return run("pulumi", args, { cwd, env: { ...process.env, ...sandbox.env }, maxBuffer: 16 * 1024 * 1024 });
}
