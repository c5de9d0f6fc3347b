/**
 * Instructions a gateway process executes per request, counted by valgrind's callgrind: a measure
 * that does not move with what else the machine runs (throughput and CPU time on a shared 2-core
 * machine do), so two gateways' counts can be compared run after run. The gateway runs as
 * `gateway serve` under `valgrind --tool=callgrind` with instrumentation off while it starts (so
 * it starts in tens of seconds rather than minutes); `callgrind_control` turns it on for a warm-up,
 * dumps (which zeroes the counts), and dumps again after the measured requests: the main thread's
 * total in the second dump over the requests answered is the figure (the event loop, where a
 * request's own work runs; see `lastDump` for why the other threads are left out).
 *
 * Needs valgrind (the Debian package `valgrind`, with `callgrind_control`); {@link callgrindMissing} says when it is absent.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Pool } from "undici";
import { startGatewayProcess, type GatewayProcess, type GatewayProcessOptions } from "@gateway-keys/testkit/gateway-process";
import type { Target } from "./load.ts";

const run = promisify(execFile);

/** Why instructions cannot be counted here (valgrind or callgrind_control missing), or undefined when they can. */
export async function callgrindMissing(): Promise<string | undefined> {
  try {
    await run("valgrind", ["--version"]);
    await run("callgrind_control", ["--version"]);
    return undefined;
  } catch {
    return "valgrind with callgrind_control is not installed (Debian: apt-get install valgrind)";
  }
}

/** A gateway process under callgrind, its instructions counted on request. */
export interface CountedGateway {
  gateway: GatewayProcess;
  /** Instructions the process's main thread executed while `work` ran, after `warm` ran uncounted with instrumentation on. */
  count(warm: () => Promise<unknown>, work: () => Promise<unknown>): Promise<number>;
  stop(): Promise<void>;
}

/** Starts `gateway serve` (with `options`) under callgrind, instrumentation off until {@link CountedGateway.count}. */
export async function startCountedGateway(options: GatewayProcessOptions): Promise<CountedGateway> {
  const folder = mkdtempSync(join(tmpdir(), "gateway-callgrind-"));
  const outFile = join(folder, "callgrind.out");
  const gateway = await startGatewayProcess({
    ...options,
    // Threads counted apart: only the main thread's count is the figure (see lastDump).
    launcher: ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes", `--callgrind-out-file=${outFile}`, "--log-file=/dev/null"],
    // Node starts tens of times slower under valgrind, more on a busy machine.
    startTimeoutMs: 600_000,
  });
  const pid = String(gateway.child.pid!);
  const control = (...args: string[]) => run("callgrind_control", [...args, pid]);
  /**
   * The main thread's total in the newest dump (callgrind.out.<n>-01: n counts dumps from 1, 01 is
   * the main thread). The other threads' work follows wall time more than requests (SQLite's
   * checkpointer wakes every 100 ms, V8 compiles in the background as it gets to it), and under
   * valgrind wall time stretches with the machine's load: counted, they made two runs disagree.
   */
  const lastDump = (): number => {
    const dumps = readdirSync(folder).filter((name) => /^callgrind\.out\.\d+-01$/.test(name));
    const number = (name: string) => Number(/\.(\d+)-01$/.exec(name)![1]);
    const newest = dumps.sort((a, b) => number(a) - number(b)).at(-1);
    const totals = newest && /^totals: (\d+)/m.exec(readFileSync(join(folder, newest), "utf8"));
    if (!totals) throw new Error(`callgrind wrote no dump with totals into ${folder}`);
    return Number(totals[1]);
  };
  return {
    gateway,
    async count(warm, work) {
      await control("--instr=on");
      await warm();
      // A dump zeroes the counts: the next one holds `work` alone.
      await control("--dump");
      await work();
      await control("--dump");
      await control("--instr=off");
      return lastDump();
    },
    async stop() {
      await gateway.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * Sends `count` requests to `target` over `connections` connections, each answered 200 with its
 * body read; throws on any other answer (a refused or failed request would count other work).
 */
export async function sendCounted(target: Target, connections: number, count: number): Promise<void> {
  const pool = new Pool(target.origin, { connections });
  let next = 0;
  const loop = async () => {
    while (next < count) {
      next++;
      const answer = await pool.request({ method: "POST", path: target.path, headers: { "content-type": "application/json", ...target.headers }, body: target.body });
      const body = await answer.body.text();
      if (answer.statusCode !== 200) throw new Error(`a counted request answered ${answer.statusCode}: ${body.slice(0, 300)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, loop));
  } finally {
    await pool.close();
  }
}
