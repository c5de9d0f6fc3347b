/**
 * The order of a run without earlier timings (a fresh clone): the minutes-long suites first, each
 * group by size as jest does; with timings, jest's own longest-first order.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const HeavyFirstSequencer = require("./heavy-first-sequencer.js");

const SIZES: Record<string, number> = {
  "/repo/test/gateway/big.test.ts": 9_000,
  "/repo/test/e2e/small-engine.test.ts": 1_000,
  "/repo/test/contract/medium.test.ts": 4_000,
  "/repo/test/gateway/routing-cluster.test.ts": 2_000,
  "/repo/test/terraform/acceptance.test.ts": 3_000,
};

let cacheDirectory: string;
beforeEach(() => (cacheDirectory = mkdtempSync(join(tmpdir(), "sequencer-"))));
afterEach(() => rmSync(cacheDirectory, { recursive: true, force: true }));

function testsOf(paths: string[]) {
  const context = { config: { cacheDirectory, name: "sequencer-test" }, hasteFS: { getSize: (path: string) => SIZES[path] } };
  return paths.map((path) => ({ path, context }));
}

test("without timings, the engine, OpenTofu and cluster suites come first, then the rest, each by size", () => {
  const sorted = new HeavyFirstSequencer().sort(testsOf(Object.keys(SIZES))).map((test: { path: string }) => test.path);
  expect(sorted).toEqual([
    "/repo/test/terraform/acceptance.test.ts",
    "/repo/test/gateway/routing-cluster.test.ts",
    "/repo/test/e2e/small-engine.test.ts",
    "/repo/test/gateway/big.test.ts",
    "/repo/test/contract/medium.test.ts",
  ]);
});

test("with timings, the longest first whatever the folder", () => {
  // jest's timings of the last run, as its cache would give them.
  const lastRun: Record<string, number> = { "/repo/test/e2e/small-engine.test.ts": 1_000, "/repo/test/gateway/big.test.ts": 9_000 };
  class AfterARun extends HeavyFirstSequencer {
    time(test: { path: string }) {
      return lastRun[test.path];
    }
  }
  const sorted = new AfterARun().sort(testsOf(Object.keys(lastRun))).map((test: { path: string }) => test.path);
  expect(sorted).toEqual(["/repo/test/gateway/big.test.ts", "/repo/test/e2e/small-engine.test.ts"]);
});
