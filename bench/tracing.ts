/**
 * What tracing costs (issue 39): whole Chat Completions through gateways configured alike
 * (bench/lib/gateway-paths.ts) to the same upstream, each `gateway serve` in its own process: the
 * baseline without tracing, a control configured as the baseline (the measurement's noise), one
 * exporting every trace (`OTEL_TRACES_SAMPLER=always_on`) and one at the default sampling (unset:
 * parent-based, one in a hundred of the traces it starts), both over OTLP/HTTP to a receiver that takes every
 * export and keeps nothing (a worker of this process). The clients send no `traceparent`, so the
 * gateway decides every trace. Measured two ways:
 *
 * 1. Side by side (bench/lib/side-by-side.ts: all loaded at once, 6 connections each): throughput
 *    (answers per second while all four share the machine) and the gateway process's CPU per
 *    answer: user + system time of every thread of the process (the event loop, V8's compiler and
 *    collector threads, SQLite's checkpointer), and its event loop's alone (what requests wait
 *    for). Each is a median over the rounds of the ratio to the baseline in the same round. The
 *    warm-up is long: a shared machine answers few requests a second, and the exporter's code is
 *    compiled by then.
 * 2. Instructions per answer of the main thread (bench/lib/instructions.ts): each gateway as a
 *    process under valgrind's callgrind, the same requests counted after a warm-up. The exporter
 *    encodes and sends its batches on the main thread, so its work is in the count (the batches of
 *    the warm-up's spans and of the counted ones alike: in a steady state they even out; batches
 *    are exported when full, see COUNTED_BATCHES, as on a busy gateway). A fifth
 *    gateway, `none sampled` (`OTEL_TRACES_SAMPLER=always_off`), traces but keeps nothing: what
 *    a request the sampler drops costs, the part of the default sampling's cost that is not its
 *    hundredth of every trace's. The default sampling's warm-up requests carry a caller's sampled
 *    `traceparent` (WARMED_WITH_KEPT_TRACES), so its span code is as warm as a busy gateway's. This
 *    count does not move with the machine's load; the control shows
 *    how far two identical gateways still differ, which bounds what one run can prove.
 *
 * 3. In process, apart from any request (bench/lib/span-costs.ts): the CPU time to make and end one
 *    span, its attributes given in the start options or set after it started, and to encode it
 *    for export as OTLP protobuf (the gateway's) or OTLP JSON.
 *
 * Run: npm run bench -- tracing        (BENCH_SECONDS=N per round, default 5; BENCH_ROUNDS, default 8, 0 to skip the side by side;
 * BENCH_COUNTED=N requests counted per gateway, default 600, 0 to skip the instruction counts; BENCH_WARM=N uncounted before, default 2000; BENCH_COUNT_PASSES, default 1;
 * BENCH_VARIANTS="default sampling,none sampled" to measure only those beside the baseline and the control)
 * Targets (issue 39): every trace costs < 10% of whole-chat throughput; the default sampling < 2%.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { BENCH_UPSTREAM_ENV, benchGatewayConfigFile, chatTarget, createBenchKey, MODEL, startWorker } from "./lib/gateway-paths.ts";
import { callgrindMissing, COUNT_CONNECTIONS, COUNT_WARM, compilingColumn, countEach, startCountedGateway, withoutCompiling } from "./lib/instructions.ts";
import { cpuPerRequest, errorsOf, eventLoopCpuPerRequest, measureSideBySide, medianRatio, printRounds, requestsPerSecond, type SideVariant } from "./lib/side-by-side.ts";
import { median, printTable } from "./lib/report.ts";
import { measureSpanCosts } from "./lib/span-costs.ts";
import { variantMeasured } from "./lib/variants.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const COUNTED = Number(process.env.BENCH_COUNTED ?? 600);
// The warm-up before each count (COUNT_WARM) matters more here: V8 optimises code by how often it
// ran, and at the default sampling the spans' and the exporter's code runs a hundredth as often.
const COUNT_PASSES = Number(process.env.BENCH_COUNT_PASSES ?? 1);
const CONNECTIONS_EACH = 6;

/** Each variant's sampler (`OTEL_TRACES_*` variables), or undefined for tracing off. */
const SAMPLERS = {
  baseline: undefined,
  control: undefined,
  "every trace": { OTEL_TRACES_SAMPLER: "always_on" },
  "default sampling": {},
  "none sampled": { OTEL_TRACES_SAMPLER: "always_off" },
} as const satisfies Record<string, Record<string, string> | undefined>;
type Variant = keyof typeof SAMPLERS;
/** The variants measured: all, or those `BENCH_VARIANTS` names beside the baseline and the control (fewer gateways under valgrind). */
const measured = (name: Variant) => variantMeasured(name, ["baseline", "control"]);
/**
 * The batch processor's settings while instructions are counted: a batch is exported when it holds
 * 128 spans, never on the 5 s timer. Under valgrind a gateway answers some fifty times fewer requests a
 * second, so the timer would export every few requests' spans in a batch of its own, each paying
 * the export's fixed cost (an HTTP request) for a few spans: a cost of the measurement, not of a
 * busy gateway, whose batches fill (512 spans by default) before the timer fires. 128 rather than
 * 512 so that sampled spans make several exports while counted; each costs its fixed part over
 * fewer spans than a busy gateway's, which errs against tracing. At the default sampling (one in a
 * hundred, five spans a chat) a batch fills once in some 2,500 requests, so its count holds a whole
 * export or none; after its warm-up (WARMED_WITH_KEPT_TRACES) none, and an export's share, some
 * 0.2% of a whole chat at one in a hundred, is added in reading it (bench/README.md, which also
 * has a run with a batch per kept chat).
 */
const COUNTED_BATCHES = { OTEL_BSP_SCHEDULE_DELAY: "3600000", OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "128" };
/**
 * The variants warmed up as a busy gateway's kept traces have warmed its span code: their uncounted
 * requests carry a caller's sampled `traceparent`, so every one is traced. At one in a hundred the
 * bench's warm-up alone keeps some 20 traces, and the few kept in the count then ran the SDK's
 * span and export code still cold (interpreted, or compiled in the count), where a gateway that has
 * run for an hour has kept thousands. The counted requests carry none: the gateway decides them.
 */
const WARMED_WITH_KEPT_TRACES: readonly Variant[] = ["default sampling"];
/** A caller's context whose trace is sampled (W3C trace context's example ids). */
const SAMPLED_CALLER = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
/** The side by side leaves `none sampled` out: the instruction counts see its cost, a fifth loaded gateway would only thin the others' share of the machine. */
const SIDE_BY_SIDE_ALL = ["baseline", "control", "every trace", "default sampling"] as const satisfies readonly Variant[];
type SideName = (typeof SIDE_BY_SIDE_ALL)[number];
const SIDE_BY_SIDE: readonly SideName[] = SIDE_BY_SIDE_ALL.filter(measured);
const COUNTED_VARIANTS = (Object.keys(SAMPLERS) as Variant[]).filter(measured);
/** The most each traced variant may cost (issue 39); the control's cost is the measurement's noise. */
const TARGETS: Partial<Record<Variant, number>> = { "every trace": 0.1, "default sampling": 0.02 };

const verdict = (name: Variant, cost: number) => {
  const target = TARGETS[name];
  if (target === undefined) return "";
  return cost < target ? "met" : `NOT met (by ${((cost - target) * 100).toFixed(1)} points)`;
};
const targetOf = (name: Variant) => (TARGETS[name] !== undefined ? `< ${TARGETS[name]! * 100}%` : name === "control" ? "0% (noise)" : "");
const percent = (cost: number) => `${(cost * 100).toFixed(1)}%`;

/** The `gateway serve` arguments of a variant: the bench's config, no rate limit to measure, spans to `sinkUrl` when it traces. */
function serveArgs(configPath: string, name: Variant, sinkUrl: string): string[] {
  // The default rate limit (200 req/s per key) would measure the rate limiter, not the gateway.
  return ["--config", configPath, "--rate-limit", "1000000000", "--rate-burst", "1000000000", ...(SAMPLERS[name] ? ["--otel-endpoint", sinkUrl] : [])];
}

/** Side by side, each gateway a process: throughput and CPU per answer against the baseline. */
async function sideBySide(configPath: string, sinkUrl: string): Promise<void> {
  const started: GatewayProcess[] = [];
  const gateway = async (name: SideName): Promise<SideVariant> => {
    const served = await startGatewayProcess({ bootstrap: { ownerId: "bench" }, args: serveArgs(configPath, name, sinkUrl), env: { ...BENCH_UPSTREAM_ENV, ...SAMPLERS[name] } });
    started.push(served);
    const secret = await createBenchKey(served.url, served.provisioningKey!, "bench");
    // The process's own stat line: every thread's CPU time, those of threads that ended included.
    const pid = served.child.pid!;
    return { target: chatTarget(`${served.url}/v1`, { authorization: `Bearer ${secret}` }, MODEL, false), threadStat: `/proc/${pid}/stat`, eventLoopStat: `/proc/${pid}/task/${pid}/stat` };
  };
  try {
    const variants = {} as Record<SideName, SideVariant>;
    for (const name of SIDE_BY_SIDE) variants[name] = await gateway(name);
    const rounds = await measureSideBySide(variants, { rounds: ROUNDS, seconds: SECONDS, warmSeconds: 8, connections: CONNECTIONS_EACH });
    printRounds(`tracing: whole chat, four gateway processes loaded at once (${CONNECTIONS_EACH} connections each), ${ROUNDS} rounds of ${SECONDS} s`, rounds);
    printTable(
      "tracing: gateway process CPU per answer, medians of the rounds (the process: all its threads; the event loop: the thread requests wait for)",
      SIDE_BY_SIDE.map((name) => ({
        variant: name,
        "process CPU µs/answer": median(rounds.map((cells) => cpuPerRequest(cells[name]))).toFixed(0),
        "event loop CPU µs/answer": median(rounds.map((cells) => eventLoopCpuPerRequest(cells[name]))).toFixed(0),
      })),
    );
    printTable(
      "tracing: cost against the baseline, medians of the rounds' ratios (the control shows the noise)",
      SIDE_BY_SIDE.filter((name) => name !== "baseline").map((name) => {
        const throughputCost = 1 - medianRatio(rounds, name, "baseline", requestsPerSecond);
        const cpuCost = medianRatio(rounds, name, "baseline", cpuPerRequest) - 1;
        const eventLoopCost = medianRatio(rounds, name, "baseline", eventLoopCpuPerRequest) - 1;
        return {
          variant: name,
          "throughput cost": percent(throughputCost),
          "process CPU per answer cost": percent(cpuCost),
          "event loop CPU per answer cost": percent(eventLoopCost),
          target: targetOf(name),
          "throughput target": verdict(name, throughputCost),
          "process CPU target": verdict(name, cpuCost),
        };
      }),
    );
    console.log(`errors: ${errorsOf(rounds)}`);
  } finally {
    await Promise.all(started.map((served) => served.stop()));
  }
}

/** Each variant as a process under callgrind: instructions per answer of the main thread against the baseline's. */
async function instructions(configPath: string, sinkUrl: string): Promise<void> {
  const missing = await callgrindMissing();
  if (missing) {
    console.log(`instruction counts skipped: ${missing}`);
    return;
  }
  // Started together (each takes a minute or more under valgrind), counted one after another.
  const started = await Promise.allSettled(
    COUNTED_VARIANTS.map(async (name) => {
      const env = { ...BENCH_UPSTREAM_ENV, ...(SAMPLERS[name] && { ...COUNTED_BATCHES, ...SAMPLERS[name] }) };
      const counted = await startCountedGateway({ bootstrap: { ownerId: "bench" }, args: serveArgs(configPath, name, sinkUrl), env });
      const { url, provisioningKey } = counted.gateway;
      const secret = await createBenchKey(url, provisioningKey!, "bench");
      const target = chatTarget(`${url}/v1`, { authorization: `Bearer ${secret}` }, MODEL, false);
      const warmTarget = WARMED_WITH_KEPT_TRACES.includes(name) ? { ...target, headers: { ...target.headers, ...SAMPLED_CALLER } } : target;
      return { name, counted, target, warmTarget };
    }),
  );
  const gateways = started.flatMap((each) => (each.status === "fulfilled" ? [each.value] : []));
  try {
    const failed = started.find((each) => each.status === "rejected");
    if (failed) throw failed.reason;
    const counts = await countEach(gateways, { warm: COUNT_WARM, counted: COUNTED, passes: COUNT_PASSES });
    const perAnswer = Object.fromEntries(COUNTED_VARIANTS.map((name) => [name, counts[name].instructions])) as Record<Variant, number>;
    const untraced = (perAnswer.baseline + perAnswer.control) / 2;
    const untracedWithoutCompiling = (withoutCompiling(counts.baseline) + withoutCompiling(counts.control)) / 2;
    printTable(
      `tracing: instructions per whole chat (callgrind, the gateway process's main thread, exporter included, batches of ${COUNTED_BATCHES.OTEL_BSP_MAX_EXPORT_BATCH_SIZE} spans; ${COUNTED} answers over ${COUNT_CONNECTIONS} connection(s) after ${COUNT_WARM} uncounted, the lowest of ${COUNT_PASSES} pass(es), each from a collected heap)`,
      COUNTED_VARIANTS.map((name) => {
        const cost = perAnswer[name] / perAnswer.baseline - 1;
        const costAgainstBoth = perAnswer[name] / untraced - 1;
        return {
          variant: name,
          "instructions / answer": Math.round(perAnswer[name]).toLocaleString("en"),
          "passes' spread": percent(counts[name].spread),
          "of which V8 compiling": compilingColumn(counts[name]),
          "against the mean, without compiling": percent(withoutCompiling(counts[name]) / untracedWithoutCompiling - 1),
          "cost against the baseline": name === "baseline" ? "" : percent(cost),
          "against the mean of baseline and control": percent(costAgainstBoth),
          target: targetOf(name),
          "target (against the mean)": verdict(name, costAgainstBoth),
        };
      }),
    );
  } finally {
    await Promise.all(gateways.map(({ counted }) => counted.stop()));
  }
}

/** One recorded span's making and encoding, in process (bench/lib/span-costs.ts): where a traced request's cost goes, and why the gateway does it this way. */
function spanCosts(): void {
  const { making, encoding } = measureSpanCosts();
  printTable(
    "tracing: one attempt span (7 attributes) made and ended, CPU ns, least of 12 rounds (in process)",
    Object.entries(making).map(([way, nanos]) => ({ way, "ns / span": nanos.toFixed(0) })),
  );
  printTable(
    "tracing: encoding for export, per span of a 512-span batch, CPU ns, least of 12 rounds (in process)",
    Object.entries(encoding).map(([way, { nanos, bytes }]) => ({ way, "ns / span": nanos.toFixed(0), "bytes / span": bytes.toFixed(0) })),
  );
}

export async function main(): Promise<void> {
  spanCosts();
  const upstream = await startWorker({ role: "upstream" });
  const sink = await startWorker({ role: "trace-sink" });
  const dir = mkdtempSync(join(tmpdir(), "bench-tracing-"));
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify(benchGatewayConfigFile(upstream.url)));
  try {
    if (ROUNDS > 0) await sideBySide(configPath, sink.url);
    if (COUNTED > 0) await instructions(configPath, sink.url);
  } finally {
    await sink.stop();
    await upstream.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
