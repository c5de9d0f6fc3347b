/**
 * Tests import the workspace packages by name, so they exercise the built `dist/` that users get
 * (scripts/setup builds it). Test files themselves are TypeScript, transpiled by ts-jest; `npm run
 * typecheck` type-checks them. The internal @gateway-keys/testkit is source too, transpiled the same
 * way (testkit/README.md says why).
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "<rootDir>/test/tsconfig.json" }] },
  // Engine tests start Pulumi operations that take tens of seconds.
  testTimeout: 300_000,
  maxWorkers: 2,
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
  globalTeardown: "<rootDir>/test/support/sweep-leftovers.js",
};
