import { Worker } from "node:worker_threads";

/**
 * Runs WAL checkpoints in a worker thread with its own connection. A checkpoint copies pages into
 * the database file and fsyncs it, which takes milliseconds on a busy disk; SQLite's automatic
 * checkpoint would do that inside whichever commit crosses the threshold, stalling the event loop
 * and every request waiting on it. PASSIVE checkpoints never block the writer, so moving them
 * here changes nothing but where the wait happens. A crash mid-checkpoint is safe (the WAL stays
 * authoritative until the copy is complete).
 */
const WORKER_SOURCE = `
const { DatabaseSync } = require("node:sqlite");
const { workerData, parentPort } = require("node:worker_threads");
const db = new DatabaseSync(workerData.path);
db.exec("PRAGMA busy_timeout = 5000");
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const timer = setInterval(() => {
  try { checkpoint.get(); } catch { /* busy or closing: the next tick tries again */ }
}, workerData.intervalMs);
parentPort.once("message", () => {
  clearInterval(timer);
  db.close();
  process.exit(0);
});
`;

/** A background checkpointer for the database at `path`; `stop` ends it and resolves once its connection is closed. */
export function startCheckpointer(path: string, intervalMs: number): { stop(): Promise<void> } {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, intervalMs } });
  // Never keep a process alive on its own, and never take it down: a failed checkpoint thread
  // only means the WAL grows until the next start or a manual checkpoint.
  worker.unref();
  worker.on("error", () => {});
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    // The thread's connection may be the database's last, and closing the last connection
    // checkpoints and removes the -wal and -shm files: callers wait for that before they move on.
    stop: () => {
      // Unreferenced, the thread would let the process exit before its connection is closed.
      worker.ref();
      worker.postMessage("stop");
      return exited;
    },
  };
}
