/**
 * Ends a jest run with one plain line, `tests: N passed, N failed[, N skipped]`, the closing line
 * CI reads to count tests whatever the runner.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `tests: ${results.numPassedTests} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : "");
    process.stdout.write(`${line}\n`);
  }
}
module.exports = SummaryReporter;
