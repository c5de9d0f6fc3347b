/**
 * Preloaded into a counted gateway (bench/lib/instructions.ts, `node --expose-gc --require`): on
 * SIGUSR2 the process collects all its garbage at once, on the main thread, then writes how many
 * collections it has made so far to the file named by BENCH_GC_DONE_FILE: each count then starts
 * from the same heap, not from wherever V8's own collections happened to leave it.
 */
"use strict";
const { writeFileSync } = require("node:fs");

const doneFile = process.env.BENCH_GC_DONE_FILE;
if (typeof globalThis.gc !== "function" || !doneFile) throw new Error("collect-garbage-on-signal needs node --expose-gc and BENCH_GC_DONE_FILE");
let collections = 0;
process.on("SIGUSR2", () => {
  globalThis.gc();
  writeFileSync(doneFile, String(++collections));
});
