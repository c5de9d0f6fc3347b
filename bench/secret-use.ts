/**
 * What tracking each secret's use costs (extension `secret_use`, issue 36): whole Chat Completions
 * at 16 connections through two gateways configured alike (bench/lib/gateway-paths.ts: an `openai`
 * provider, every key policy on, request and response logged on a SQLite file) to the same upstream,
 * one tracking which secret each request used and from which client, the other with tracking off
 * (the internal `secretUse.track: false`). Each runs in its own worker thread. After a warm-up, the
 * two take turns round after round, in alternating order, so a slower spell of this shared machine
 * falls on both; each figure is a median over the rounds and the ratio the median of the rounds'
 * ratios. Beside throughput, each gateway thread's own CPU time per request (read from /proc): on a
 * machine busy with other work, throughput swings with what else runs, while the CPU a request
 * costs the gateway thread moves much less. Afterwards the tracked gateway's key must show the
 * requests it counted, and the other's none.
 *
 * Run: npm run bench -- secret-use        (BENCH_SECONDS=N per cell, default 5; BENCH_ROUNDS, default 6)
 * Target (issue 36): tracking costs < 2% of whole-chat throughput (ratio ≥ 0.98).
 * The machine's load average while it ran is printed with the table: read the figures with it.
 */
import { cpus, loadavg } from "node:os";
import { ApiKey } from "@gateway-keys/contract";
import { SecretUseTracker } from "@gateway-keys/gateway/dist/keys/secret-use-tracker.js";
import type { Store, StoredApiKey } from "@gateway-keys/gateway";
import { chatTarget, MODEL, startWorker } from "./lib/gateway-paths.ts";
import { loadWhole, type WholeCell } from "./lib/load.ts";
import { threadCpuSeconds } from "./lib/process-cpu.ts";
import { median, printTable } from "./lib/report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CONNECTIONS = 16;
const WARM_SECONDS = 2;
const VARIANTS = ["untracked", "tracked"] as const;
type Variant = (typeof VARIANTS)[number];

/** The key's record as its gateway reports it (after the tracker's flush). */
async function keyRecord(url: string, provisioningKey: string): Promise<ApiKey> {
  const origin = new URL(url).origin;
  const page = (await (await fetch(`${origin}/v1/account/api-keys?limit=1`, { headers: { authorization: `Bearer ${provisioningKey}` } })).json()) as { data: unknown[] };
  return ApiKey.parse(page.data[0]);
}

/**
 * What the tracker adds to one request, alone: `seen` (the only call on a request's path) timed over
 * many calls, from 16 clients on 4 keys. CPU-bound and in-process, so it hardly moves with the
 * machine's load, unlike the throughput figures. (Its flush, one unit of work every 2 s whatever
 * the rate, is not on any request's path.)
 */
function seenMicros(calls = 500_000): number {
  const tracker = new SecretUseTracker({} as Store);
  const keys = Array.from({ length: 4 }, (_, i) => ({ id: `key_bench${i}`, secretHash: Buffer.alloc(32, i), previousSecretHash: null, rotatedAt: null, createdAt: 0 }) as unknown as StoredApiKey);
  const agents = Array.from({ length: 16 }, (_, i) => `bench-client/${i} (node)`);
  const run = (n: number) => {
    for (let i = 0; i < n; i++) tracker.seen(keys[i % 4]!, "current", agents[i % 16], "127.0.0.1", Date.now());
  };
  run(50_000);
  const start = performance.now();
  run(calls);
  return ((performance.now() - start) * 1000) / calls;
}

export async function main(): Promise<void> {
  const upstream = await startWorker({ role: "upstream" });
  const gateways = {
    untracked: await startWorker({ role: "gateway", upstreamUrl: upstream.url, trackSecretUse: false }),
    tracked: await startWorker({ role: "gateway", upstreamUrl: upstream.url, trackSecretUse: true }),
  };
  try {
    const target = (variant: Variant) =>
      chatTarget(gateways[variant].url, { authorization: `Bearer ${gateways[variant].secret}`, "user-agent": `bench-secret-use/${variant}` }, MODEL, false);
    for (const variant of VARIANTS) await loadWhole(target(variant), CONNECTIONS, WARM_SECONDS);

    /** One gateway's cell of a round: its load figures and its thread's CPU microseconds per answered request. */
    type Cell = WholeCell & { cpuMicrosPerRequest: number };
    const rounds: Record<Variant, Cell>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? VARIANTS : ([...VARIANTS].reverse() as unknown as typeof VARIANTS);
      const cells = {} as Record<Variant, Cell>;
      for (const variant of order) {
        const cpuBefore = threadCpuSeconds(gateways[variant].threadStat!);
        const cell = await loadWhole(target(variant), CONNECTIONS, SECONDS);
        const cpu = threadCpuSeconds(gateways[variant].threadStat!) - cpuBefore;
        cells[variant] = { ...cell, cpuMicrosPerRequest: (cpu * 1e6) / (cell.requestsPerSecond * SECONDS) };
      }
      rounds.push(cells);
    }
    const errors = rounds.reduce((sum, cells) => sum + cells.tracked.errors + cells.untracked.errors, 0);

    // Past one flush interval (2 s): the tracked gateway has written what it counted.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const counted = {
      untracked: (await keyRecord(gateways.untracked.url, gateways.untracked.provisioningKey!)).currentSecret?.requestsSinceRotation ?? 0,
      tracked: (await keyRecord(gateways.tracked.url, gateways.tracked.provisioningKey!)).currentSecret?.requestsSinceRotation ?? 0,
    };

    console.log(`load average while measuring (1, 5, 15 min): ${loadavg().map((load) => load.toFixed(1)).join(", ")} on ${cpus().length} cores`);
    printTable(
      `secret use tracking: whole chat at ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per gateway, alternating (requests/s)`,
      rounds.map((cells, round) => ({
        round: round + 1,
        "untracked req/s": cells.untracked.requestsPerSecond.toFixed(0),
        "tracked req/s": cells.tracked.requestsPerSecond.toFixed(0),
        ratio: (cells.tracked.requestsPerSecond / cells.untracked.requestsPerSecond).toFixed(3),
        "untracked p50 ms": cells.untracked.p50.toFixed(1),
        "tracked p50 ms": cells.tracked.p50.toFixed(1),
        "untracked CPU µs/req": cells.untracked.cpuMicrosPerRequest.toFixed(0),
        "tracked CPU µs/req": cells.tracked.cpuMicrosPerRequest.toFixed(0),
      })),
    );
    const ratio = median(rounds.map((cells) => cells.tracked.requestsPerSecond / cells.untracked.requestsPerSecond));
    const cpuRatio = median(rounds.map((cells) => cells.tracked.cpuMicrosPerRequest / cells.untracked.cpuMicrosPerRequest));
    printTable("secret use tracking: medians", [
      {
        "untracked req/s": median(rounds.map((cells) => cells.untracked.requestsPerSecond)).toFixed(0),
        "tracked req/s": median(rounds.map((cells) => cells.tracked.requestsPerSecond)).toFixed(0),
        "ratio (median of rounds)": ratio.toFixed(3),
        "throughput cost": `${((1 - ratio) * 100).toFixed(1)}%`,
        "CPU per request (tracked / untracked)": `${cpuRatio.toFixed(3)} (${((cpuRatio - 1) * 100).toFixed(1)}%)`,
        "target": "< 2%",
        "errors": errors,
        "requests counted (untracked / tracked)": `${counted.untracked} / ${counted.tracked}`,
      },
    ]);
    const seen = seenMicros();
    const untrackedCpu = median(rounds.map((cells) => cells.untracked.cpuMicrosPerRequest));
    printTable("secret use tracking: the tracker's own cost per request, against the gateway thread's CPU per request (medians)", [
      {
        "tracker.seen µs/call": seen.toFixed(3),
        "gateway CPU µs/req (untracked)": untrackedCpu.toFixed(0),
        "share": `${((seen / untrackedCpu) * 100).toFixed(2)}%`,
        target: "< 2%",
      },
    ]);
    if (counted.tracked === 0 || counted.untracked !== 0) throw new Error(`tracking was not as configured: counted ${JSON.stringify(counted)}`);
  } finally {
    await Promise.all([gateways.untracked.stop(), gateways.tracked.stop()]);
    await upstream.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
