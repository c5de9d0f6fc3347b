/**
 * Two builds of the gateway side by side: whole Chat Completions through a gateway of each
 * checkout (configured alike: bench/lib/gateway-paths.ts) plus a control of the first, all loaded at
 * once (bench/lib/side-by-side.ts), so a change's cost is measured in the same run as what it
 * changed — a refactor's "not slower" shown rather than assumed.
 *
 * Run: BENCH_BUILDS=/path/to/before,/path/to/after npm run bench -- builds
 *   (each a checkout with its own `npm ci` and `tsc -b` done; BENCH_SECONDS, default 5; BENCH_ROUNDS, default 8)
 */
import { resolve } from "node:path";
import { startWorker } from "./lib/gateway-paths.ts";
import { cpuPerRequest, errorsOf, measureSideBySide, medianRatio, printRounds, requestsPerSecond, wholeChatVariants } from "./lib/side-by-side.ts";
import { printTable } from "./lib/report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CONNECTIONS_EACH = 8;
const VARIANTS = ["before", "control", "after"] as const;
type Variant = (typeof VARIANTS)[number];

export async function main(): Promise<void> {
  const builds = (process.env.BENCH_BUILDS ?? "").split(",").filter(Boolean).map((path) => resolve(path));
  if (builds.length !== 2) {
    console.log("builds: set BENCH_BUILDS=<before checkout>,<after checkout> (each built with tsc -b) to compare two builds; skipped");
    return;
  }
  const [before, after] = builds as [string, string];
  const upstream = await startWorker({ role: "upstream" });
  const gateways: Record<Variant, Awaited<ReturnType<typeof startWorker>>> = {
    before: await startWorker({ role: "gateway", upstreamUrl: upstream.url, repoRoot: before }),
    control: await startWorker({ role: "gateway", upstreamUrl: upstream.url, repoRoot: before }),
    after: await startWorker({ role: "gateway", upstreamUrl: upstream.url, repoRoot: after }),
  };
  try {
    const rounds = await measureSideBySide(wholeChatVariants(gateways), {
      rounds: ROUNDS,
      seconds: SECONDS,
      warmSeconds: 2,
      connections: CONNECTIONS_EACH,
    });
    console.log(`before: ${before}\nafter:  ${after}`);
    printRounds(`builds: whole chat, three gateways loaded at once (${CONNECTIONS_EACH} connections each), ${ROUNDS} rounds of ${SECONDS} s`, rounds);
    printTable(
      "builds: medians of the rounds' ratios to the build before",
      (["control", "after"] as const).map((name) => ({
        variant: name,
        throughput: medianRatio(rounds, name, "before", requestsPerSecond).toFixed(3),
        "CPU per request": medianRatio(rounds, name, "before", cpuPerRequest).toFixed(3),
        reading: name === "control" ? "the measurement's noise (ideally 1.000)" : "after / before",
      })),
    );
    console.log(`errors: ${errorsOf(rounds)}`);
  } finally {
    await Promise.all(VARIANTS.map((name) => gateways[name].stop()));
    await upstream.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
