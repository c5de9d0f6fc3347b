/**
 * Tests import the workspace packages by name, so they exercise the built `dist/` that users get
 * (scripts/setup builds it). Test files themselves are TypeScript, transpiled by ts-jest; `npm run
 * typecheck` type-checks them. The internal @gateway-keys/testkit is source too, transpiled the same
 * way (testkit/README.md says why).
 * @type {import('jest').Config}
 */
const { postgresProject } = require("./test/support/postgres-project.js");

/** What every project shares. */
const base = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/test/tsconfig.json" }] },
};

module.exports = {
  // Every test on SQLite; the store-sensitive gateway suites once more on PostgreSQL (skipped and
  // counted on a machine without its binaries, failed under CI=true: test/support/postgres-project.js).
  projects: [{ ...base, displayName: "sqlite", testMatch: ["**/*.test.ts"] }, ...postgresProject(base)],
  // Engine tests start Pulumi operations that take tens of seconds.
  testTimeout: 300_000,
  maxWorkers: 2,
  // Without earlier timings (a fresh clone), the minutes-long suites go first (the file says why).
  testSequencer: "<rootDir>/test/support/heavy-first-sequencer.js",
  // The closing lines: skipped tests counted by reason, then `tests: N passed, N failed, N skipped`.
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
  globalTeardown: "<rootDir>/test/support/sweep-leftovers.js",
};
