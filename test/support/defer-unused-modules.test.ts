/**
 * testkit/src/engine/defer-unused-modules.cjs, preloaded the way the engine sandbox preloads it into
 * the processes the CLI starts: `@pulumi/pulumi`'s runtime loads without Arborist and TypeScript,
 * and a process that does use them gets the real modules.
 */
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

const run = promisify(execFile);
const PRELOAD = join(REPO_ROOT, "testkit/src/engine/defer-unused-modules.cjs");

/** Runs `script` in a fresh Node process with the preload (as the sandbox's NODE_OPTIONS does), returning its JSON output. */
async function withPreload(script: string, cwd = REPO_ROOT): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, ["--require", PRELOAD, "-e", script], { cwd });
  return JSON.parse(stdout);
}

/** Whether a file of `pkg` is among the modules the process has loaded. */
const LOADED = `const loaded = (pkg) => Object.keys(require.cache).some((file) => file.includes("/node_modules/" + pkg + "/"));`;

describe("deferring the modules a dynamic provider never uses", () => {
  it("loads @pulumi/pulumi's runtime without Arborist or TypeScript", async () => {
    const result = await withPreload(`${LOADED}
      require("@pulumi/pulumi/runtime");
      console.log(JSON.stringify({ runtime: loaded("@pulumi/pulumi"), arborist: loaded("@npmcli/arborist"), typescript: loaded("typescript") }));`);
    expect(result).toEqual({ runtime: true, arborist: false, typescript: false });
  });

  it("hands over the real modules on first use", async () => {
    const result = await withPreload(`${LOADED}
      const arborist = require("@npmcli/arborist");
      const ts = require("typescript");
      const before = { arborist: loaded("@npmcli/arborist"), typescript: loaded("typescript") };
      const source = ts.createSourceFile("f.ts", "const a = 1;", ts.ScriptTarget.Latest);
      console.log(JSON.stringify({
        before,
        arborist: typeof arborist.Arborist,
        sameArborist: arborist.Arborist === require(require.resolve("@npmcli/arborist")).Arborist,
        statements: source.statements.length,
        version: ts.version === require(require.resolve("typescript")).version,
      }));`);
    expect(result).toEqual({ before: { arborist: false, typescript: false }, arborist: "function", sameArborist: true, statements: 1, version: true });
  });

  it("fails as before when a deferred module cannot be found", async () => {
    // Run from a folder with no node_modules: the require must throw at once, not hand over a stand-in.
    const result = await withPreload(
      `let code = "loaded";
      try { require("typescript"); } catch (error) { code = error.code; }
      console.log(JSON.stringify({ code }));`,
      tmpdir(),
    );
    expect(result).toEqual({ code: "MODULE_NOT_FOUND" });
  });
});
