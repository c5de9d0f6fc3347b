/**
 * What routing decisions cost (issue 38): whole Chat Completions through gateways whose model has
 * three routes (three providers, each the same upstream under its own name: bench/lib/gateway-paths.ts),
 * each gateway in its own worker thread, measured side by side (bench/lib/side-by-side.ts: all loaded
 * at once, 6 connections each): the baseline `ordered` (the routes as listed, the first answering),
 * a control configured as the baseline (the measurement's noise), `weighted`, `least-busy`,
 * `lowest-latency`, and `weighted` with a quota on every route that is never reached (counted in
 * memory on SQLite). Every variant's answers come from the same upstream: what differs is the choice.
 *
 * Then the decisions alone, in this thread: a request's plan, its order, the admission of its first
 * route (its quota, counted in memory) and the observer's start and end — the routing's whole share of
 * a request — timed in CPU µs per request and set against the baseline's CPU per whole request: the
 * figure that still reads on a loaded machine, where throughput ratios carry a few percent of noise.
 *
 * Run: npm run bench -- routing        (BENCH_SECONDS=N per round, default 5; BENCH_ROUNDS, default 8)
 * Target (issue 38): every strategy costs < 2% of whole-chat throughput against `ordered`.
 */
import { startWorker, type BenchRouting } from "./lib/gateway-paths.ts";
import { cpuPerRequest, errorsOf, measureSideBySide, medianRatio, printRounds, requestsPerSecond, wholeChatVariants } from "./lib/side-by-side.ts";
import { median, printTable } from "./lib/report.ts";
import { Router } from "@gateway-keys/gateway/dist/dispatch/router.js";
import { RouteCooldowns } from "@gateway-keys/gateway/dist/dispatch/route-health.js";
import { RouteReadingsTable } from "@gateway-keys/gateway/dist/dispatch/route-readings.js";
import { DEFAULT_COOLDOWN, MemoryRouteHealth } from "@gateway-keys/gateway/dist/metering/route-health-records.js";
import { MemoryRateLimits } from "@gateway-keys/gateway/dist/metering/rate-limits.js";
import type { ProviderRoute } from "@gateway-keys/gateway/dist/models/catalog.js";

const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 200_000);

/** CPU µs per request of the routing alone (plan, order, the first route's admission, the observer), for one variant. */
async function decisionMicros(routing: BenchRouting): Promise<number> {
  const router = new Router({ readings: new RouteReadingsTable(), cooldowns: new RouteCooldowns(new MemoryRouteHealth(), DEFAULT_COOLDOWN), rates: new MemoryRateLimits(), now: Date.now });
  const quota = routing.quota ? { requestsPerMinute: 1_000_000_000, tokensPerMinute: 1_000_000_000_000 } : undefined;
  // Routes as the router reads them (a provider's name and timeout, the model, weight and quota): nothing is sent.
  const routes = Array.from({ length: routing.routes }, (_, index) => ({ provider: { name: `upstream-${index}`, timeoutMs: 60_000 }, model: "bench-upstream", weight: 1, quota })) as unknown as ProviderRoute[];
  const answer = async () => "answer";
  const once = async () => {
    const plan = await router.plan("bench-chat", routing.strategy, routes.length);
    plan.tokens = 320;
    const [first] = plan.order(routes);
    const watch = plan.observer.started(first!, 0);
    await plan.attempt(answer)(first!, {});
    watch.ended({ answered: true });
    plan.finish(80);
  };
  for (let warm = 0; warm < 20_000; warm++) await once();
  const started = process.cpuUsage();
  for (let decision = 0; decision < DECISIONS; decision++) await once();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / DECISIONS;
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CONNECTIONS_EACH = 6;
const ROUTES = 3;

const VARIANTS = {
  baseline: { strategy: "ordered", routes: ROUTES },
  control: { strategy: "ordered", routes: ROUTES },
  weighted: { strategy: "weighted", routes: ROUTES },
  "least-busy": { strategy: "least-busy", routes: ROUTES },
  "lowest-latency": { strategy: "lowest-latency", routes: ROUTES },
  "weighted + quotas": { strategy: "weighted", routes: ROUTES, quota: true },
} as const satisfies Record<string, BenchRouting>;
type Variant = keyof typeof VARIANTS;
const NAMES = Object.keys(VARIANTS) as Variant[];

export async function main(): Promise<void> {
  const upstream = await startWorker({ role: "upstream" });
  const gateways = {} as Record<Variant, Awaited<ReturnType<typeof startWorker>>>;
  for (const name of NAMES) gateways[name] = await startWorker({ role: "gateway", upstreamUrl: upstream.url, routing: VARIANTS[name] });
  try {
    const rounds = await measureSideBySide(wholeChatVariants(gateways), {
      rounds: ROUNDS,
      seconds: SECONDS,
      warmSeconds: 2,
      connections: CONNECTIONS_EACH,
    });
    printRounds(`routing: whole chat over ${ROUTES} routes, ${NAMES.length} gateways loaded at once (${CONNECTIONS_EACH} connections each), ${ROUNDS} rounds of ${SECONDS} s`, rounds);
    printTable(
      "routing: medians of the rounds' ratios to the baseline (ordered)",
      NAMES.filter((name) => name !== "baseline").map((name) => ({
        variant: name,
        throughput: medianRatio(rounds, name, "baseline", requestsPerSecond).toFixed(3),
        "throughput cost": `${((1 - medianRatio(rounds, name, "baseline", requestsPerSecond)) * 100).toFixed(1)}%`,
        "CPU per request": medianRatio(rounds, name, "baseline", cpuPerRequest).toFixed(3),
        target: name === "control" ? "1.000 (noise)" : "cost < 2%",
      })),
    );
    console.log(`errors: ${errorsOf(rounds)}`);
    const wholeRequestMicros = median(rounds.map((cells) => cells.baseline.cpuMicrosPerRequest));
    const decisions: { variant: string; "CPU µs per request": string; "share of a whole request": string; target: string }[] = [];
    for (const name of NAMES.filter((variant) => variant !== "control")) {
      const micros = await decisionMicros(VARIANTS[name]);
      decisions.push({ variant: name, "CPU µs per request": micros.toFixed(2), "share of a whole request": `${((100 * micros) / wholeRequestMicros).toFixed(2)}%`, target: "< 2%" });
    }
    printTable(`routing: the decisions alone (${DECISIONS} requests each), against the baseline's ${wholeRequestMicros.toFixed(0)} CPU µs per whole chat`, decisions);
  } finally {
    await Promise.all(NAMES.map((name) => gateways[name].stop()));
    await upstream.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
