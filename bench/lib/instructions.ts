/**
 * Instructions a gateway process executes per request, counted by valgrind's callgrind: a measure
 * that does not move with what else the machine runs (throughput and CPU time on a shared 2-core
 * machine do), so two gateways' counts can be compared run after run. The gateway runs as
 * `gateway serve` under `valgrind --tool=callgrind` with instrumentation off while it starts (so
 * it starts in tens of seconds rather than minutes); `callgrind_control` turns it on for a warm-up,
 * dumps (which zeroes the counts), and dumps again after the measured requests: the main thread's
 * total in the second dump over the requests answered is the figure (the event loop, where a
 * request's own work runs; see `lastDump` for why the other threads are left out), less what the
 * gateway's timers did meanwhile (`IDLE_MS`).
 *
 * Every count starts from the same heap: all garbage is collected just before the counts are
 * zeroed (collect-garbage-on-signal.cjs), and V8 compiles and collects on the main thread alone
 * (its predictable mode, so no share of that work lands on threads left out). The count then
 * holds the young-generation collections the requests' garbage causes, and a full collection only
 * when the requests themselves fill the old generation. Without that, a full collection (its
 * marking alone weighs about as much as a few hundred requests) fell inside some counts and not
 * others, and two identical gateways' figures differed by tens of percent.
 *
 * Needs valgrind (the Debian package `valgrind`, with `callgrind_control`); {@link callgrindMissing} says when it is absent.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Pool } from "undici";
import { startGatewayProcess, type GatewayProcess, type GatewayProcessOptions } from "@gateway-keys/testkit/gateway-process";
import type { Target } from "./load.ts";

const run = promisify(execFile);

/**
 * Requests each counted gateway answers uncounted before each count (`BENCH_WARM`): a gateway's
 * count keeps falling for a thousand requests and more as V8 optimises, and V8 still compiles in
 * every count after, a tenth of it even after 10,000 (the compilers' share, printed beside each
 * count, says how much): a count measures code on its way up V8's tiers, not its steady state.
 */
export const COUNT_WARM = Number(process.env.BENCH_WARM ?? 2000);

/**
 * Connections the counted requests come over (`BENCH_COUNT_CONNECTIONS`, default 1, so that what a
 * request does never hangs on how requests overlap); more shows the work that concurrency shares
 * out (one commit for several requests' rows) as a loaded gateway does it.
 */
export const COUNT_CONNECTIONS = Number(process.env.BENCH_COUNT_CONNECTIONS ?? 1);

/** The compilers' share of a count per request, as a table shows it. */
export const compilingColumn = (perRequest: PerRequest): string => `${Math.round(perRequest.compiling).toLocaleString("en")} (${((perRequest.compiling / perRequest.instructions) * 100).toFixed(1)}%)`;

/**
 * A count without V8's optimising compilers: what the event loop does per request when V8
 * compiles on its background threads, as it does outside predictable mode. Which code V8 happens
 * to recompile within a count differs from gateway to gateway by tens of thousands of
 * instructions a request; taking that out does not make runs agree either (what was compiled
 * also decides what ran unoptimised, bench/README.md), so both figures are printed.
 */
export const withoutCompiling = (perRequest: PerRequest): number => perRequest.instructions - perRequest.compiling;
const COLLECT_ON_SIGNAL = fileURLToPath(new URL("./collect-garbage-on-signal.cjs", import.meta.url));

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

/**
 * How long a counted gateway is left idle after each count, its instructions counted: the work of
 * its timers (a webhook poll every half second, flushes, scans), which follows wall time, not
 * requests. Under valgrind a count lasts minutes, longer on a busier machine, so that work is
 * measured at rest and taken out of the count by the count's duration; left in, it put two
 * identical gateways counted one after the other some 7% apart.
 */
const IDLE_MS = 20_000;

/** A gateway process under callgrind, its instructions counted on request. */
export interface CountedGateway {
  gateway: GatewayProcess;
  /**
   * Instructions the process's main thread executed for `requests.counted` requests (`send`
   * sends them; its timers' share taken out), and of those V8's compilers' (`compiling`), after
   * `requests.warm` ran uncounted (sent by `sendWarm`, by default `send`).
   */
  count(
    send: (requests: number) => Promise<unknown>,
    requests: { warm: number; counted: number },
    sendWarm?: (requests: number) => Promise<unknown>,
  ): Promise<{ instructions: number; compiling: number }>;
  stop(): Promise<void>;
}

/** Starts `gateway serve` (with `options`) under callgrind, instrumentation off until {@link CountedGateway.count}. */
export async function startCountedGateway(options: GatewayProcessOptions): Promise<CountedGateway> {
  const folder = mkdtempSync(join(tmpdir(), "gateway-callgrind-"));
  const outFile = join(folder, "callgrind.out");
  const collectedFile = join(folder, "collections");
  const gateway = await startGatewayProcess({
    ...options,
    // Threads counted apart: only the main thread's count is the figure (see lastDump).
    launcher: ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--separate-threads=yes", `--callgrind-out-file=${outFile}`, "--log-file=/dev/null"],
    // V8 in its predictable mode: no background compiling or collecting (under valgrind a
    // background thread's progress, and so which code gets optimised when, is a matter of
    // scheduling), fixed seeds, and a heap that grows by a fixed schedule, not by timers.
    nodeFlags: ["--predictable", "--predictable-gc-schedule", "--expose-gc", "--require", COLLECT_ON_SIGNAL],
    env: { ...options.env, BENCH_GC_DONE_FILE: collectedFile },
    // Node starts tens of times slower under valgrind, more on a busy machine.
    startTimeoutMs: 600_000,
  });
  const pid = String(gateway.child.pid!);
  const control = (...args: string[]) => run("callgrind_control", [...args, pid]);
  let collections = 0;
  /** Has the gateway collect all its garbage, and waits until it has. */
  const collectGarbage = async () => {
    collections++;
    gateway.child.kill("SIGUSR2");
    while (!existsSync(collectedFile) || Number(readFileSync(collectedFile, "utf8")) < collections) await sleep(50);
  };
  /**
   * The main thread's total in the newest dump (callgrind.out.<n>-01: n counts dumps from 1, 01 is
   * the main thread). The other threads' work follows wall time more than requests (SQLite's
   * checkpointer wakes every 100 ms, V8 compiles in the background as it gets to it), and under
   * valgrind wall time stretches with the machine's load: counted, they made two runs disagree.
   */
  const newestDump = (): string => {
    const dumps = readdirSync(folder).filter((name) => /^callgrind\.out\.\d+-01$/.test(name));
    const number = (name: string) => Number(/\.(\d+)-01$/.exec(name)![1]);
    const newest = dumps.sort((a, b) => number(a) - number(b)).at(-1);
    if (!newest) throw new Error(`callgrind wrote no dump into ${folder}`);
    return join(folder, newest);
  };
  const lastDump = (): number => {
    const totals = /^totals: (\d+)/m.exec(readFileSync(newestDump(), "utf8"));
    if (!totals) throw new Error(`callgrind's newest dump in ${folder} has no totals`);
    return Number(totals[1]);
  };
  return {
    gateway,
    async count(send, requests, sendWarm = send) {
      // Instrumented: a warm-up run several times faster uninstrumented left V8 compiling more
      // in the count after it, not less (bench/README.md).
      await control("--instr=on");
      await sendWarm(requests.warm);
      await collectGarbage();
      // A dump zeroes the counts: the next one holds the counted requests alone.
      await control("--dump");
      const started = performance.now();
      await send(requests.counted);
      const workMs = performance.now() - started;
      await control("--dump");
      const busy = lastDump();
      const compiling = await compilersShare(newestDump());
      // What the timers alone cost while nothing else runs, per millisecond (see IDLE_MS).
      await sleep(IDLE_MS);
      await control("--dump");
      const idlePerMs = lastDump() / IDLE_MS;
      await control("--instr=off");
      return { instructions: busy - idlePerMs * workMs, compiling };
    },
    async stop() {
      await gateway.stop();
      // Kept for callgrind_annotate (which native functions a variant's count adds) when asked.
      if (process.env.BENCH_KEEP_DUMPS) console.log(`callgrind dumps of gateway ${pid} kept in ${folder}`);
      else rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * The instructions of a callgrind dump spent in V8's optimising compilers (TurboFan, Turboshaft,
 * Maglev), read from callgrind_annotate's self costs. In predictable mode they compile on the main
 * thread (elsewhere on a background thread), so code that V8 still optimises while a count runs
 * lands in it: shown beside the count, it says how far the count is from the gateway's steady state.
 */
async function compilersShare(dump: string): Promise<number> {
  const { stdout } = await run("callgrind_annotate", ["--inclusive=no", "--threshold=100", dump], { maxBuffer: 256 * 1024 * 1024 });
  let total = 0;
  for (const line of stdout.split("\n")) {
    const cost = /^\s*([\d,]+) \([^)]*\)\s+(.*)$/.exec(line);
    if (cost && /v8::internal::(compiler|maglev)::/.test(cost[2]!)) total += Number(cost[1]!.replaceAll(",", ""));
  }
  return total;
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

/** A counted gateway and the request it is counted on (and warmed with, unless `warmTarget` says otherwise). */
export interface CountedSubject<Name extends string> {
  name: Name;
  counted: CountedGateway;
  target: Target;
  warmTarget?: Target;
}

/** Each gateway's instructions per request: the lowest of its passes, and how far its highest pass was above that. */
export interface PerRequest {
  instructions: number;
  /** Of `instructions`, V8's compilers' in the same pass ({@link compilersShare}). */
  compiling: number;
  /** (highest − lowest) / lowest over the passes: 0 with one pass. */
  spread: number;
}

/**
 * Counts each gateway in `passes` passes, one gateway at a time ({@link COUNT_CONNECTIONS}), `warm` uncounted requests before each count
 * (V8 keeps optimising for thousands of requests: the compilers' share of a count says how far it
 * still is; after minutes idle while the others were counted, a gateway warmed by a few hundred
 * counted some 15% more), every other pass in the
 * reverse order so that no gateway is always first. A count can only come out high (code not yet
 * optimised), so the lowest pass is the figure; the spread says how far the passes disagreed.
 */
export async function countEach<Name extends string>(subjects: readonly CountedSubject<Name>[], options: { warm: number; counted: number; passes: number }): Promise<Record<Name, PerRequest>> {
  const passes = {} as Record<Name, { instructions: number; compiling: number }[]>;
  const send = (on: Target) => (requests: number) => sendCounted(on, COUNT_CONNECTIONS, requests);
  for (let pass = 0; pass < options.passes; pass++) {
    for (const { name, counted, target, warmTarget = target } of pass % 2 === 0 ? subjects : [...subjects].reverse()) {
      const { instructions, compiling } = await counted.count(send(target), options, send(warmTarget));
      (passes[name] ??= []).push({ instructions: instructions / options.counted, compiling: compiling / options.counted });
    }
  }
  const perRequest = {} as Record<Name, PerRequest>;
  for (const { name } of subjects) {
    const lowest = passes[name].reduce((low, each) => (each.instructions < low.instructions ? each : low));
    const highest = Math.max(...passes[name].map((each) => each.instructions));
    perRequest[name] = { ...lowest, spread: highest / lowest.instructions - 1 };
  }
  return perRequest;
}
