/**
 * Which of scripts/setup's parts each test needs beyond `node` and `pulumi` (which every command
 * run through scripts/run has): `npm test` installs the parts of the tests it is about to run
 * (scripts/test.ts). A new test folder or file that needs a tool gets a line here, and, if a
 * missing tool should skip it rather than fail it, a `describeWith` (test/support/needs.ts).
 *
 * Only erasable TypeScript: Node runs it directly, and jest through ts-jest.
 */

/** A part of scripts/setup. */
export type SetupPart = "node" | "pulumi" | "tofu" | "helm" | "jaeger" | "postgres" | "espeak" | "chromium" | "containers" | "python";

/** Test paths (relative to the repository, a folder ending in `/`, or a file) and the parts their tests need. */
export const PARTS_BY_TEST_PATH: readonly [path: string, parts: readonly SetupPart[]][] = [
  // The `postgres` jest project runs every gateway suite again on PostgreSQL (test/support/postgres-project.js).
  ["test/gateway/", ["postgres"]],
  ["test/gateway/model-api-espeak.test.ts", ["espeak"]],
  ["test/faults/", ["postgres"]],
  ["test/webhooks/", ["postgres"]],
  ["test/console/", ["chromium"]],
  ["test/terraform/", ["tofu"]],
  ["test/telemetry/", ["jaeger"]],
  ["test/deploy/", ["helm", "containers", "postgres"]],
  ["test/e2e/native-python.test.ts", ["python"]],
  ["test/e2e/policy-pack.test.ts", ["python"]],
];

/**
 * The parts the test files `files` (relative paths) need, in no particular order. Without the
 * `postgres` jest project among `projects` (jest's `--selectProjects`; undefined: every project),
 * the gateway suites run on SQLite only and need no PostgreSQL for that.
 */
export function partsFor(files: readonly string[], projects?: readonly string[]): SetupPart[] {
  const parts = new Set<SetupPart>();
  const postgresProject = projects === undefined || projects.includes("postgres");
  for (const file of files) {
    for (const [path, needs] of PARTS_BY_TEST_PATH) {
      const matches = path.endsWith("/") ? file.startsWith(path) : file === path;
      if (!matches) continue;
      for (const part of needs) {
        if (part === "postgres" && path === "test/gateway/" && !postgresProject) continue;
        parts.add(part);
      }
    }
  }
  return [...parts];
}
