/**
 * The `postgres` jest project: every gateway suite again, with every test gateway on PostgreSQL
 * (GATEWAY_TEST_STORE=postgres, one database per gateway on one throw-away server for the run):
 * the whole behaviour suite holds on both stores. Suites about SQLite itself (durability, schema
 * upgrades) open their own SQLite files and run alike. Left out, with one line saying why, on a
 * machine without PostgreSQL's binaries.
 */

function unavailableReason() {
  try {
    // The testkit's own check (Node strips its types).
    return require("../../testkit/src/postgres.ts").postgresUnavailableReason();
  } catch (error) {
    return `cannot load testkit/src/postgres.ts: ${error.message}`;
  }
}

exports.postgresProject = function postgresProject(base) {
  const reason = unavailableReason();
  if (reason) {
    process.stderr.write(`jest: skipping the PostgreSQL runs of the gateway suites: ${reason}\n`);
    return [];
  }
  return [
    {
      ...base,
      displayName: "postgres",
      testMatch: ["<rootDir>/test/gateway/*.test.ts"],
      setupFiles: ["<rootDir>/test/support/postgres-store-env.js"],
      globalSetup: "<rootDir>/test/support/postgres-global-setup.ts",
      globalTeardown: "<rootDir>/test/support/postgres-global-teardown.ts",
    },
  ];
};
