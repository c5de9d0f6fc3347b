/**
 * Why tests were skipped, carried from the test files (test/support/needs.ts) to the closing line
 * (test/support/summary-reporter.js): jest reports a skipped test with no reason, so each skip for
 * a missing dependency appends one JSON line to a file the reporter made and named in the
 * environment before the workers started (they inherit it).
 *
 * Only erasable TypeScript and Node's own modules: the reporter loads it with Node's type stripping.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";

/** The environment variable naming the log file; unset outside a run with the summary reporter. */
export const SKIP_LOG_ENV = "GATEWAY_KEYS_SKIP_LOG";

/** One skip: the tests of `title` in `testPath` (a describe block's name, or a test's) did not run, for `reason`. */
export interface SkipRecord {
  testPath: string;
  title: string;
  /** The missing dependency, by its name in test/support/needs.ts. */
  dependency: string;
  reason: string;
  /** With an empty `title`: every test of the file in this jest project was skipped. */
  project?: string;
}

/** Appends `record` to the run's log (nothing outside a run with the summary reporter). */
export function recordSkip(record: SkipRecord): void {
  const log = process.env[SKIP_LOG_ENV];
  if (log) appendFileSync(log, `${JSON.stringify(record)}\n`);
}

/** Every record in the log file `log`. */
export function readSkips(log: string): SkipRecord[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as SkipRecord);
}
