/**
 * What tracing costs (issue 39): whole Chat Completions through four gateways configured alike
 * (bench/lib/gateway-paths.ts) to the same upstream, each in its own worker thread, measured side by
 * side (bench/lib/side-by-side.ts: all loaded at once, 6 connections each): the baseline without
 * tracing, a control configured as the baseline (the measurement's noise), one exporting every
 * trace (`OTEL_TRACES_SAMPLER=always_on`) and one at the default sampling (unset: parent-based, a
 * tenth of the traces it starts), both over OTLP/HTTP to a receiver that takes every export and keeps
 * nothing (its own worker). The clients send no `traceparent`, so the gateway decides every trace.
 *
 * Run: npm run bench -- tracing        (BENCH_SECONDS=N per round, default 5; BENCH_ROUNDS, default 8)
 * Targets (issue 39): every trace costs < 10% of whole-chat throughput; the default sampling < 2%.
 */
import { startWorker } from "./lib/gateway-paths.ts";
import { cpuPerRequest, errorsOf, measureSideBySide, medianRatio, printRounds, requestsPerSecond, wholeChatVariants } from "./lib/side-by-side.ts";
import { printTable } from "./lib/report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CONNECTIONS_EACH = 6;
const VARIANTS = ["baseline", "control", "every trace", "default sampling"] as const;
type Variant = (typeof VARIANTS)[number];

export async function main(): Promise<void> {
  const upstream = await startWorker({ role: "upstream" });
  const sink = await startWorker({ role: "trace-sink" });
  const traced = (sampler: Record<string, string>) => startWorker({ role: "gateway", upstreamUrl: upstream.url, otelEndpoint: sink.url, env: sampler });
  const gateways: Record<Variant, Awaited<ReturnType<typeof startWorker>>> = {
    baseline: await startWorker({ role: "gateway", upstreamUrl: upstream.url }),
    control: await startWorker({ role: "gateway", upstreamUrl: upstream.url }),
    "every trace": await traced({ OTEL_TRACES_SAMPLER: "always_on" }),
    "default sampling": await traced({}),
  };
  try {
    const rounds = await measureSideBySide(wholeChatVariants(gateways), {
      rounds: ROUNDS,
      seconds: SECONDS,
      warmSeconds: 2,
      connections: CONNECTIONS_EACH,
    });
    printRounds(`tracing: whole chat, four gateways loaded at once (${CONNECTIONS_EACH} connections each), ${ROUNDS} rounds of ${SECONDS} s`, rounds);
    const cost = (name: Variant) => `${((1 - medianRatio(rounds, name, "baseline", requestsPerSecond)) * 100).toFixed(1)}%`;
    printTable(
      "tracing: medians of the rounds' ratios to the baseline",
      (["control", "every trace", "default sampling"] as const).map((name) => ({
        variant: name,
        throughput: medianRatio(rounds, name, "baseline", requestsPerSecond).toFixed(3),
        "throughput cost": cost(name),
        "CPU per request": medianRatio(rounds, name, "baseline", cpuPerRequest).toFixed(3),
        target: name === "every trace" ? "cost < 10%" : name === "default sampling" ? "cost < 2%" : "1.000 (noise)",
      })),
    );
    console.log(`errors: ${errorsOf(rounds)}`);
  } finally {
    await Promise.all(VARIANTS.map((name) => gateways[name].stop()));
    await sink.stop();
    await upstream.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
