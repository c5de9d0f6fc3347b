/**
 * Ends a jest run with the skipped tests counted by why, then one plain closing line, which CI
 * reads to count tests whatever the runner (it must stand alone: `N passed, N failed, N skipped`):
 *
 *   skipped: 9 without chromium: no Chromium binary (install Debian's chromium, or set CHROMIUM_PATH)
 *   skipped: 3 marked to skip in the test code
 *   tests: 1990 passed, 0 failed, 12 skipped
 *
 * A skip for a missing dependency (test/support/needs.ts) is written to a log this reporter names
 * in the environment before the workers start; any other skipped or todo test was marked so in
 * the test code.
 */
const { mkdtempSync, rmSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");
const { readSkips, SKIP_LOG_ENV } = require("./skip-log.ts");

const MARKED_IN_CODE = "marked to skip in the test code";

/**
 * The reason a pending test of `file` (in jest project `project`) was skipped, from the run's skip
 * records: its whole file's in that project, else its own block's or its own.
 */
function reasonOf(records, file, project, assertion) {
  const titles = [...assertion.ancestorTitles, assertion.title];
  const ofFile = records.filter((skip) => skip.testPath === file);
  const record =
    ofFile.find((skip) => skip.title === "" && skip.project === project) ?? ofFile.find((skip) => skip.title !== "" && titles.includes(skip.title));
  return record ? `without ${record.dependency}: ${record.reason}` : MARKED_IN_CODE;
}

/** A line per reason, `skipped: 9 without chromium: …`, the largest group first. */
function skipLines(counts) {
  return [...counts].sort(([, a], [, b]) => b - a).map(([reason, count]) => `skipped: ${count} ${reason}\n`);
}

class SummaryReporter {
  constructor() {
    this.logDir = mkdtempSync(join(tmpdir(), "gateway-keys-skips-"));
    this.log = join(this.logDir, "skips.jsonl");
    // Set before jest starts its workers, which inherit it (and so do tests run in band).
    process.env[SKIP_LOG_ENV] = this.log;
    /** Each skipped test's file, project and assertion, read when the run ends. */
    this.pending = [];
  }

  onTestFileResult(test, testResult) {
    const project = test.context.config.displayName?.name;
    for (const assertion of testResult.testResults) {
      if (assertion.status === "pending" || assertion.status === "todo") this.pending.push({ file: testResult.testFilePath, project, assertion });
    }
  }

  onRunComplete(_contexts, results) {
    const records = readSkips(this.log);
    rmSync(this.logDir, { recursive: true, force: true });
    const counts = new Map();
    for (const { file, project, assertion } of this.pending) {
      const reason = reasonOf(records, file, project, assertion);
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
    const skipped = this.pending.length;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `tests: ${results.numPassedTests} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : "");
    process.stdout.write(`${skipLines(counts).join("")}${line}\n`);
  }
}
module.exports = SummaryReporter;
