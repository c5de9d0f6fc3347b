/**
 * The layering of every TypeScript package holds — contract/src, sdk/src, gateway/src,
 * console/src, provider/src and testkit/src: dependency-cruiser, with the rules of
 * .dependency-cruiser.cjs (no import cycle, type-only imports included; no import from a layer to
 * one above it; every file placed in a layer; no package importing one it must not know), finds no
 * violation. A violation fails this test with dependency-cruiser's own report of it.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

/** Every tree .dependency-cruiser.cjs lays out. */
const TREES = ["contract/src", "sdk/src", "gateway/src", "console/src", "provider/src", "testkit/src"];

test("no import cycle, no upward import and no forbidden package in any package's src", () => {
  const cruiser = join(REPO_ROOT, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs");
  const run = spawnSync(process.execPath, [cruiser, "--config", ".dependency-cruiser.cjs", "--output-type", "err", ...TREES], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  const report = `${run.stdout}${run.stderr}`;
  expect({ status: run.status, report }).toEqual({ status: 0, report: expect.stringContaining("no dependency violations found") });
  // It read the whole of every tree, not an empty set: at least each tree's own source files.
  const sources = TREES.flatMap((tree) => readdirSync(join(REPO_ROOT, tree), { recursive: true, encoding: "utf8" })).filter((file) => /\.tsx?$/.test(file));
  expect(sources.length).toBeGreaterThan(250);
  expect(Number(/(\d+) modules/.exec(report)?.[1])).toBeGreaterThanOrEqual(sources.length);
});
