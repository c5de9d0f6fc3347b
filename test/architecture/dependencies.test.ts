/**
 * The layering of gateway/src and provider/src holds: dependency-cruiser, with the rules of
 * .dependency-cruiser.cjs (no import cycle, type-only imports included; no import from a layer to
 * one above it; every file placed in a layer), finds no violation. A violation fails this test
 * with dependency-cruiser's own report of it.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

test("no import cycle and no upward import in gateway/src and provider/src", () => {
  const cruiser = join(REPO_ROOT, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs");
  const run = spawnSync(process.execPath, [cruiser, "--config", ".dependency-cruiser.cjs", "--output-type", "err", "gateway/src", "provider/src"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  const report = `${run.stdout}${run.stderr}`;
  expect({ status: run.status, report }).toEqual({ status: 0, report: expect.stringContaining("no dependency violations found") });
  // It read the whole of both trees, not an empty set.
  expect(Number(/(\d+) modules/.exec(report)?.[1])).toBeGreaterThan(150);
});
