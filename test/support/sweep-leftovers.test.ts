import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@gateway-keys/testkit/engine";

/** The teardown function itself (CommonJS, as jest loads it). */
const sweepLeftovers: () => Promise<void> = require("./sweep-leftovers.js");

/**
 * The teardown sweep removes inline-program folders that tests left behind, but never one whose
 * owner is still running: that is another jest run's, and its plugins run in it.
 */
describe("jest's teardown sweep of testkit/.workspaces", () => {
  const folder = (name: string) => join(REPO_ROOT, "testkit/.workspaces", `sweep-test-${process.pid}-${name}`);
  const owned = (name: string, pid: number | undefined) => {
    mkdirSync(folder(name), { recursive: true });
    if (pid !== undefined) writeFileSync(join(folder(name), ".owner-pid"), String(pid));
    return folder(name);
  };

  it("keeps the folders and project stack files of live processes, removes those of gone ones, this run's own and unmarked ones", async () => {
    const live = spawn("sleep", ["60"]);
    const gone = spawn("true");
    await once(gone, "exit");
    try {
      const kept = [owned("live", live.pid)];
      const removed = [owned("gone", gone.pid), owned("own", process.pid), owned("unmarked", undefined)];
      // Project stacks are named after their sandbox's workspace, lower-cased: `e2e-<workspace>`.
      const stackFile = (name: string) => {
        const path = join(REPO_ROOT, `Pulumi.e2e-sweep-test-${process.pid}-${name.toLowerCase()}.yaml`);
        writeFileSync(path, "config: {}\n");
        return path;
      };
      kept.push(stackFile("LIVE"));
      removed.push(stackFile("gone"));
      const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
      try {
        await sweepLeftovers();
      } finally {
        warn.mockRestore();
      }
      expect(kept.filter(existsSync)).toEqual(kept);
      expect(removed.filter(existsSync)).toEqual([]);
    } finally {
      live.kill();
      rmSync(folder("live"), { recursive: true, force: true });
      rmSync(join(REPO_ROOT, `Pulumi.e2e-sweep-test-${process.pid}-live.yaml`), { force: true });
    }
  });
});
