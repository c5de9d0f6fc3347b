/**
 * What tracking each secret's use costs (extension `secret_use`, issue 36): whole Chat Completions
 * through three gateways configured alike (bench/lib/gateway-paths.ts: an `openai` provider, every
 * key policy on, request and response logged on a SQLite file) to the same upstream, each in its own
 * worker thread: one tracking which secret each request used and from which client, and two with
 * tracking off (the internal `secretUse.track: false`) — the baseline and a control — measured side
 * by side (bench/lib/side-by-side.ts: all three loaded at once, 8 connections each, the control's
 * ratio showing the measurement's noise). Each figure is a median over the rounds. Afterwards the
 * tracked gateway's key must show the requests it counted, and the others none.
 *
 * Run: npm run bench -- secret-use        (BENCH_SECONDS=N per round, default 5; BENCH_ROUNDS, default 8)
 * Target (issue 36): tracking costs < 2% of whole-chat throughput (ratio ≥ 0.98).
 * The machine's load average while it ran is printed with the table: read the figures with it.
 */
import { cpus, loadavg } from "node:os";
import { ApiKey } from "@gateway-keys/contract";
import { SecretUseTracker } from "@gateway-keys/gateway/dist/keys/secret-use-tracker.js";
import type { Store, StoredApiKey } from "@gateway-keys/gateway";
import { chatTarget, MODEL, startWorker } from "./lib/gateway-paths.ts";
import { cpuPerRequest, errorsOf, measureSideBySide, medianRatio, requestsPerSecond, type SideCell, type SideVariant } from "./lib/side-by-side.ts";
import { median, printTable } from "./lib/report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CONNECTIONS_EACH = 8;
const WARM_SECONDS = 2;
const VARIANTS = ["baseline", "control", "tracked"] as const;
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
    baseline: await startWorker({ role: "gateway", upstreamUrl: upstream.url, trackSecretUse: false }),
    control: await startWorker({ role: "gateway", upstreamUrl: upstream.url, trackSecretUse: false }),
    tracked: await startWorker({ role: "gateway", upstreamUrl: upstream.url, trackSecretUse: true }),
  };
  try {
    const target = (variant: Variant) =>
      chatTarget(gateways[variant].url, { authorization: `Bearer ${gateways[variant].secret}`, "user-agent": `bench-secret-use/${variant}` }, MODEL, false);
    const rounds = await measureSideBySide(
      Object.fromEntries(VARIANTS.map((variant) => [variant, { target: target(variant), threadStat: gateways[variant].threadStat! }])) as Record<Variant, SideVariant>,
      { rounds: ROUNDS, seconds: SECONDS, warmSeconds: WARM_SECONDS, connections: CONNECTIONS_EACH },
    );
    const errors = errorsOf(rounds);

    // Past one flush interval (2 s): the tracked gateway has written what it counted.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const counted = Object.fromEntries(
      await Promise.all(VARIANTS.map(async (variant) => [variant, (await keyRecord(gateways[variant].url, gateways[variant].provisioningKey!)).currentSecret?.requestsSinceRotation ?? 0])),
    ) as Record<Variant, number>;

    const ratioOf = (variant: Variant, figure: (cell: SideCell) => number) => medianRatio(rounds, variant, "baseline", figure);
    const rate = requestsPerSecond;
    const cpu = cpuPerRequest;
    console.log(`load average while measuring (1, 5, 15 min): ${loadavg().map((load) => load.toFixed(1)).join(", ")} on ${cpus().length} cores`);
    printTable(
      `secret use tracking: whole chat, three gateways loaded at once (${CONNECTIONS_EACH} connections each), ${ROUNDS} rounds of ${SECONDS} s`,
      rounds.map((cells, i) => ({
        round: i + 1,
        "baseline req/s": cells.baseline.requestsPerSecond.toFixed(0),
        "control req/s": cells.control.requestsPerSecond.toFixed(0),
        "tracked req/s": cells.tracked.requestsPerSecond.toFixed(0),
        "tracked / baseline": (cells.tracked.requestsPerSecond / cells.baseline.requestsPerSecond).toFixed(3),
        "control / baseline": (cells.control.requestsPerSecond / cells.baseline.requestsPerSecond).toFixed(3),
        "CPU µs/req baseline · control · tracked": VARIANTS.map((variant) => cells[variant].cpuMicrosPerRequest.toFixed(0)).join(" · "),
      })),
    );
    const tracked = ratioOf("tracked", rate);
    printTable("secret use tracking: medians of the rounds' ratios to the baseline", [
      {
        "throughput, tracked": tracked.toFixed(3),
        "throughput, control (noise)": ratioOf("control", rate).toFixed(3),
        "tracking's throughput cost": `${((1 - tracked) * 100).toFixed(1)}%`,
        "CPU per request, tracked": ratioOf("tracked", cpu).toFixed(3),
        "CPU per request, control (noise)": ratioOf("control", cpu).toFixed(3),
        target: "cost < 2%",
        errors,
        "requests counted (baseline / control / tracked)": VARIANTS.map((variant) => counted[variant]).join(" / "),
      },
    ]);
    const seen = seenMicros();
    const baselineCpu = median(rounds.map((cells) => cells.baseline.cpuMicrosPerRequest));
    printTable("secret use tracking: the tracker's own cost per request, against the gateway thread's CPU per request (medians)", [
      {
        "tracker.seen µs/call": seen.toFixed(3),
        "gateway CPU µs/req (baseline)": baselineCpu.toFixed(0),
        share: `${((seen / baselineCpu) * 100).toFixed(2)}%`,
        target: "< 2%",
      },
    ]);
    if (counted.tracked === 0 || counted.baseline !== 0 || counted.control !== 0) throw new Error(`tracking was not as configured: counted ${JSON.stringify(counted)}`);
  } finally {
    await Promise.all(VARIANTS.map((variant) => gateways[variant].stop()));
    await upstream.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
