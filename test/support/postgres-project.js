/**
 * The `postgres` jest project: every gateway suite again, with every test gateway on PostgreSQL
 * (GATEWAY_TEST_STORE=postgres, one database per gateway on one throw-away server for the run):
 * the whole behaviour suite holds on both stores. Suites about SQLite itself (durability, schema
 * upgrades) open their own SQLite files and run alike. On a machine without PostgreSQL's binaries
 * its tests are listed and skipped, with the reason in the closing line; under CI=true the run
 * fails instead (test/support/needs.ts decides both).
 */
const { missing } = require("./needs.ts");

const TEST_MATCH = ["<rootDir>/test/gateway/*.test.ts"];
/**
 * Gateway suites that start their own PostgreSQL gateways whatever the project (several processes
 * on one database): the `sqlite` project already runs them on PostgreSQL, so a second run here
 * would repeat every test unchanged.
 */
const ON_POSTGRES_IN_EVERY_PROJECT = [
  "<rootDir>/test/gateway/postgres-cluster.test.ts",
  "<rootDir>/test/gateway/secret-use-cluster.test.ts",
  "<rootDir>/test/gateway/routing-cluster.test.ts",
  "<rootDir>/test/gateway/teams-cluster.test.ts",
];

exports.postgresProject = function postgresProject(base) {
  const project = {
    ...base,
    displayName: "postgres",
    testMatch: TEST_MATCH,
    testPathIgnorePatterns: ["/node_modules/", ...ON_POSTGRES_IN_EVERY_PROJECT],
    setupFiles: ["<rootDir>/test/support/postgres-store-env.js"],
  };
  const reason = missing("postgres");
  if (reason) {
    process.stderr.write(`jest: skipping the PostgreSQL runs of the gateway suites: ${reason}\n`);
    return [{ ...project, setupFilesAfterEnv: ["<rootDir>/test/support/postgres-missing.ts"] }];
  }
  return [
    {
      ...project,
      globalSetup: "<rootDir>/test/support/postgres-global-setup.ts",
      globalTeardown: "<rootDir>/test/support/postgres-global-teardown.ts",
    },
  ];
};
