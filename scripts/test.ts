/**
 * `npm test [-- jest's arguments]`: installs what the selected tests need, then runs them.
 *
 * jest lists the test files its arguments select (`--listTests`), scripts/test-parts.ts maps them
 * to scripts/setup's parts (OpenTofu for test/terraform, Chromium for test/console…), scripts/setup
 * installs those (quick when they are there), and jest runs with the same arguments. Run through
 * scripts/run, which has already set up node and pulumi.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { partsFor } from "./test-parts.ts";

const ROOT = process.cwd();
const JEST = "node_modules/.bin/jest";
const args = process.argv.slice(2);

/** The projects jest's `--selectProjects` names, or undefined when it names none (every project runs). */
function selectedProjects(argv: readonly string[]): string[] | undefined {
  const at = argv.indexOf("--selectProjects");
  if (at === -1) return undefined;
  const projects: string[] = [];
  for (const arg of argv.slice(at + 1)) {
    if (arg.startsWith("-")) break;
    projects.push(arg);
  }
  return projects;
}

// Listed without CI=true: under it a dependency about to be installed would fail jest's
// configuration (test/support/needs.ts) before the list is made.
const { CI: _ci, ...listEnv } = process.env;
const listed = execFileSync(JEST, ["--listTests", "--json", ...args], { cwd: ROOT, env: listEnv, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
const files = (JSON.parse(listed) as string[]).map((file) => relative(ROOT, file));
const parts = partsFor(files, selectedProjects(args));
if (parts.length > 0) execFileSync("bash", ["scripts/setup", "--quiet", ...parts], { cwd: ROOT, stdio: "inherit" });

// The tests that install the release (test/e2e/support/outside-project.ts) build it once per run, here.
const sharedRelease = mkdtempSync(join(tmpdir(), "gateway-keys-run-release-"));
const jest = spawn(JEST, args, { cwd: ROOT, stdio: "inherit", env: { ...process.env, GATEWAY_KEYS_SHARED_RELEASE_DIR: sharedRelease } });
// Ctrl-C reaches jest from the terminal itself; a SIGTERM is passed on.
process.on("SIGINT", () => undefined);
process.on("SIGTERM", () => jest.kill("SIGTERM"));
jest.on("exit", (code) => {
  rmSync(sharedRelease, { recursive: true, force: true });
  process.exit(code ?? 1);
});
