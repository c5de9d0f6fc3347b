/**
 * The skip decision (test/support/needs.ts) and the closing lines (test/support/summary-reporter.js)
 * in a real jest run of their own, over fixtures/needs.fixture.ts: without CI a missing dependency
 * skips, and the skipped tests are counted by reason; under CI=true it fails the run, naming it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";

const run = promisify(execFile);

const base = {
  rootDir: REPO_ROOT,
  roots: ["<rootDir>/test/support/fixtures"],
  testMatch: ["**/*.fixture.ts"],
  testEnvironment: "node",
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/test/tsconfig.json" }] },
};
const config = {
  projects: [
    { ...base, displayName: "plain" },
    { ...base, displayName: "whole", setupFilesAfterEnv: ["<rootDir>/test/support/fixtures/skip-whole-project.fixture-setup.ts"] },
  ],
  // jest's own reporter writes to stderr (failures and their messages); the summary reporter to stdout.
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
};

/** Runs jest over the fixtures with `env` on top of this process's (less CI and the outer run's skip log). */
async function jestRun(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const { CI: _ci, GATEWAY_KEYS_SKIP_LOG: _log, GATEWAY_KEYS_WITHOUT: _without, ...outer } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, [require.resolve("jest/bin/jest"), "--config", JSON.stringify(config)], {
      cwd: REPO_ROOT,
      env: { ...outer, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout: string; stderr: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const WITHOUT = "chromium,espeak-ng";
const pretended = `treated as missing (GATEWAY_KEYS_WITHOUT=${WITHOUT})`;

test("without CI, missing dependencies skip their tests, and the run ends with the skips counted by reason, then the plain closing line", async () => {
  const { code, stdout } = await jestRun({ GATEWAY_KEYS_WITHOUT: WITHOUT });
  expect(code).toBe(0);
  const lines = stdout.trim().split("\n");
  // The closing line stands alone, as CI reads it; the reasons come right before it.
  expect(lines.at(-1)).toBe("tests: 1 passed, 0 failed, 9 skipped");
  expect(lines.slice(0, -1).sort()).toEqual(
    [
      "skipped: 5 without postgres: the fixture's own reason",
      `skipped: 2 without chromium: ${pretended}`,
      `skipped: 1 without espeak-ng: ${pretended}`,
      "skipped: 1 marked to skip in the test code",
    ].sort(),
  );
  // The largest group first.
  expect(lines[0]).toBe("skipped: 5 without postgres: the fixture's own reason");
}, 120_000);

test("under CI=true a missing dependency fails the run, naming it, instead of skipping", async () => {
  const { code, stdout, stderr } = await jestRun({ GATEWAY_KEYS_WITHOUT: WITHOUT, CI: "true" });
  expect(code).toBe(1);
  expect(stderr).toContain(`CI=true and chromium is missing: ${pretended}`);
  // The fixture failed to load in both projects: nothing ran, nothing was skipped.
  expect(stdout.trim().split("\n")).toEqual(["tests: 0 passed, 2 failed"]);
}, 120_000);
