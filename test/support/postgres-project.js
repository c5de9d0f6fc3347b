/**
 * The `postgres` jest project: the gateway suites whose behaviour depends on the store, run again
 * with every test gateway on PostgreSQL (GATEWAY_TEST_STORE=postgres, one database per gateway on
 * one throw-away server for the run). Left out, with one line saying why, on a machine without
 * PostgreSQL's binaries.
 */
const STORE_SENSITIVE_SUITES = [
  "account-keys",
  "auth-matrix",
  "client-reference",
  "idempotency",
  "limits",
  "logging",
  "model-api-media-metering",
  "model-api-sdks-metering",
  "pagination",
  "retention",
  "rotation-grace",
  "versioning",
];

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
      testMatch: STORE_SENSITIVE_SUITES.map((name) => `<rootDir>/test/gateway/${name}.test.ts`),
      setupFiles: ["<rootDir>/test/support/postgres-store-env.js"],
      globalSetup: "<rootDir>/test/support/postgres-global-setup.ts",
      globalTeardown: "<rootDir>/test/support/postgres-global-teardown.ts",
    },
  ];
};
