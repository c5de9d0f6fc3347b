/**
 * Jest global teardown. Engine tests remove their stacks, and with them the Pulumi.<stack>.yaml
 * files the CLI writes into project folders; a test killed mid-way cannot. This removes what such a
 * test left in the repository, and says so, so a leak of files is seen rather than committed.
 */
const { existsSync, readdirSync, readFileSync, rmSync } = require("node:fs");
const { join } = require("node:path");

const ROOT = join(__dirname, "../..");
const PROJECT_DIRS = [".", "quickstart", "test/e2e/fixtures/smoke-project", ...listDirs("examples")];
const STACK_FILE = /^Pulumi\.(e2e|demo)-(.+)\.yaml$/;
/** Where the testkit's engine sandbox runs inline programs. */
const WORKSPACES = "testkit/.workspaces";
/** The pid of the process that made a workspace (testkit/src/engine/sandbox.ts writes it). */
const OWNER_FILE = ".owner-pid";

/**
 * Whether a workspace belongs to a test process still running: another jest run on the same
 * clone (its plugins run in that folder, and crash when it vanishes). This run's own are done by
 * now, as are those of processes that are gone.
 */
function inUseElsewhere(dir) {
  let pid;
  try {
    pid = Number(readFileSync(join(dir, OWNER_FILE), "utf8"));
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function listDirs(dir) {
  const path = join(ROOT, dir);
  if (!existsSync(path)) return [];
  return readdirSync(path, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name));
}

module.exports = async function sweepLeftovers() {
  const leftovers = [];
  /** Sandboxes of processes still running, by the lower-cased name of their workspace. */
  const live = new Set();
  if (existsSync(join(ROOT, WORKSPACES))) {
    for (const name of readdirSync(join(ROOT, WORKSPACES))) {
      if (inUseElsewhere(join(ROOT, WORKSPACES, name))) live.add(name.toLowerCase());
      else leftovers.push(join(WORKSPACES, name));
    }
  }
  for (const dir of PROJECT_DIRS) {
    for (const name of readdirSync(join(ROOT, dir))) {
      const match = STACK_FILE.exec(name);
      // A project stack is named after its sandbox's workspace (`e2e-<workspace>`): kept while that runs.
      if (match && !live.has(match[2].toLowerCase())) leftovers.push(join(dir, name));
    }
  }
  for (const path of leftovers) rmSync(join(ROOT, path), { recursive: true, force: true });
  if (leftovers.length > 0) console.warn(`\nremoved files engine tests left behind: ${leftovers.join(", ")}`);
};
