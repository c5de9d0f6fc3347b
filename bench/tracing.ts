/**
 * What tracing costs (issue 39): whole Chat Completions through four gateways configured alike
 * (bench/lib/gateway-paths.ts) to the same upstream, each `gateway serve` in its own process,
 * measured side by side (bench/lib/side-by-side.ts: all loaded at once, 6 connections each): the
 * baseline without tracing, a control configured as the baseline (the measurement's noise), one
 * exporting every trace (`OTEL_TRACES_SAMPLER=always_on`) and one at the default sampling (unset:
 * parent-based, a tenth of the traces it starts), both over OTLP/HTTP to a receiver that takes every
 * export and keeps nothing (a worker of this process). The clients send no `traceparent`, so the
 * gateway decides every trace.
 *
 * Two measures: throughput (answers per second while all four share the machine), and the gateway
 * process's CPU per answer: user + system time of every thread of the process (the event loop, V8's
 * compiler and collector threads, SQLite's checkpointer), which moves much less than throughput
 * with whatever else the machine runs, and its event loop's alone (what requests wait for). Each is
 * a median over the rounds of the ratio to the baseline in the same round. The warm-up is long: a
 * shared machine answers few requests a second, and the exporter's code is compiled by then.
 *
 * Run: npm run bench -- tracing        (BENCH_SECONDS=N per round, default 5; BENCH_ROUNDS, default 8)
 * Targets (issue 39): every trace costs < 10% of whole-chat throughput; the default sampling < 2%.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { BENCH_UPSTREAM_ENV, benchGatewayConfigFile, chatTarget, createBenchKey, MODEL, startWorker } from "./lib/gateway-paths.ts";
import { cpuPerRequest, errorsOf, eventLoopCpuPerRequest, measureSideBySide, medianRatio, printRounds, requestsPerSecond, type SideVariant } from "./lib/side-by-side.ts";
import { median, printTable } from "./lib/report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CONNECTIONS_EACH = 6;
const VARIANTS = ["baseline", "control", "every trace", "default sampling"] as const;
type Variant = (typeof VARIANTS)[number];
/** The most each traced variant may cost (issue 39); the control's cost is the measurement's noise. */
const TARGETS: Partial<Record<Variant, number>> = { "every trace": 0.1, "default sampling": 0.02 };

export async function main(): Promise<void> {
  const upstream = await startWorker({ role: "upstream" });
  const sink = await startWorker({ role: "trace-sink" });
  const dir = mkdtempSync(join(tmpdir(), "bench-tracing-"));
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify(benchGatewayConfigFile(upstream.url)));
  const started: GatewayProcess[] = [];
  const gateway = async (tracing: { sampler: Record<string, string> } | undefined): Promise<SideVariant> => {
    const served = await startGatewayProcess({
      bootstrap: { ownerId: "bench" },
      // The default rate limit (200 req/s per key) would measure the rate limiter, not the gateway.
      args: ["--config", configPath, "--rate-limit", "1000000000", "--rate-burst", "1000000000", ...(tracing ? ["--otel-endpoint", sink.url] : [])],
      env: { ...BENCH_UPSTREAM_ENV, ...tracing?.sampler },
    });
    started.push(served);
    const secret = await createBenchKey(served.url, served.provisioningKey!, "bench");
    // The process's own stat line: every thread's CPU time, those of threads that ended included.
    const pid = served.child.pid!;
    return { target: chatTarget(`${served.url}/v1`, { authorization: `Bearer ${secret}` }, MODEL, false), threadStat: `/proc/${pid}/stat`, eventLoopStat: `/proc/${pid}/task/${pid}/stat` };
  };
  try {
    const variants: Record<Variant, SideVariant> = {
      baseline: await gateway(undefined),
      control: await gateway(undefined),
      "every trace": await gateway({ sampler: { OTEL_TRACES_SAMPLER: "always_on" } }),
      "default sampling": await gateway({ sampler: {} }),
    };
    const rounds = await measureSideBySide(variants, { rounds: ROUNDS, seconds: SECONDS, warmSeconds: 8, connections: CONNECTIONS_EACH });
    printRounds(`tracing: whole chat, four gateway processes loaded at once (${CONNECTIONS_EACH} connections each), ${ROUNDS} rounds of ${SECONDS} s`, rounds);
    printTable(
      "tracing: gateway process CPU per answer, medians of the rounds (the process: all its threads; the event loop: the thread requests wait for)",
      VARIANTS.map((name) => ({
        variant: name,
        "process CPU µs/answer": median(rounds.map((cells) => cpuPerRequest(cells[name]))).toFixed(0),
        "event loop CPU µs/answer": median(rounds.map((cells) => eventLoopCpuPerRequest(cells[name]))).toFixed(0),
      })),
    );
    const verdict = (name: Variant, cost: number) => {
      const target = TARGETS[name];
      if (target === undefined) return "";
      return cost < target ? "met" : `NOT met (by ${((cost - target) * 100).toFixed(1)} points)`;
    };
    printTable(
      "tracing: cost against the baseline, medians of the rounds' ratios (the control shows the noise)",
      VARIANTS.filter((name) => name !== "baseline").map((name) => {
        const throughputCost = 1 - medianRatio(rounds, name, "baseline", requestsPerSecond);
        const cpuCost = medianRatio(rounds, name, "baseline", cpuPerRequest) - 1;
        const eventLoopCost = medianRatio(rounds, name, "baseline", eventLoopCpuPerRequest) - 1;
        const target = TARGETS[name];
        return {
          variant: name,
          "throughput cost": `${(throughputCost * 100).toFixed(1)}%`,
          "process CPU per answer cost": `${(cpuCost * 100).toFixed(1)}%`,
          "event loop CPU per answer cost": `${(eventLoopCost * 100).toFixed(1)}%`,
          target: target === undefined ? "0% (noise)" : `< ${target * 100}%`,
          "throughput target": verdict(name, throughputCost),
          "process CPU target": verdict(name, cpuCost),
        };
      }),
    );
    console.log(`errors: ${errorsOf(rounds)}`);
  } finally {
    await Promise.all(started.map((served) => served.stop()));
    await sink.stop();
    await upstream.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
