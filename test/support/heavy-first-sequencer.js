/**
 * Jest orders test files by how long they took last time, longest first, so that no long file is
 * left running alone at the end while the other worker idles. On a fresh clone (CI) there is no
 * last time, and jest falls back to file size — which puts the engine suites, short files that
 * run for minutes, near the end. Without timings, this starts the suites that drive the Pulumi
 * engine, OpenTofu, containers, a browser or several gateway processes first.
 */
const TestSequencer = require("@jest/test-sequencer").default;

const HEAVY = [/\/test\/e2e\//, /\/test\/terraform\//, /\/test\/deploy\//, /\/test\/faults\//, /\/test\/console\//, /-cluster\.test\.ts$/];
const heavy = (test) => HEAVY.some((pattern) => pattern.test(test.path));

module.exports = class HeavyFirstSequencer extends TestSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    return [...sorted.filter(heavy), ...sorted.filter((test) => !heavy(test))];
  }
};
