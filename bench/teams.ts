/**
 * What a key in a team costs (issue 37): whole Chat Completions through three gateways configured
 * alike (bench/lib/gateway-paths.ts: an `openai` provider, every key policy on, request and
 * response logged on a SQLite file) to the same upstream, each in its own worker thread: one whose
 * key is in a team with every team limit set and none reached (two spend windows, a rate limit, a
 * model ceiling: each request reserves from the key's window and both of the team's, and is
 * admitted under the team's rate limit), and two whose key is alone — the baseline and a control —
 * measured side by side (bench/lib/side-by-side.ts: all three loaded at once, 8 connections each,
 * the control's ratio showing the measurement's noise). Each figure is a median over the rounds.
 * Afterwards the team must show what its key spent.
 *
 * Run: npm run bench -- teams        (BENCH_SECONDS=N per round, default 5; BENCH_ROUNDS, default 8)
 * Target (issue 37): a key in a team costs < 5% of whole-chat throughput (ratio ≥ 0.95).
 * The machine's load average while it ran is printed with the table: read the figures with it.
 */
import { cpus, loadavg } from "node:os";
import { ListPage, Team } from "@gateway-keys/contract";
import { chatTarget, MODEL, startWorker } from "./lib/gateway-paths.ts";
import { cpuPerRequest, errorsOf, measureSideBySide, medianRatio, requestsPerSecond, type SideCell, type SideVariant } from "./lib/side-by-side.ts";
import { printTable } from "./lib/report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CONNECTIONS_EACH = 8;
const WARM_SECONDS = 2;
const VARIANTS = ["baseline", "control", "teamed"] as const;
type Variant = (typeof VARIANTS)[number];

/** The teams of a gateway's owner, as it reports them. */
async function teamsOf(url: string, provisioningKey: string): Promise<Team[]> {
  const origin = new URL(url).origin;
  const page = (await (await fetch(`${origin}/v1/account/teams`, { headers: { authorization: `Bearer ${provisioningKey}` } })).json()) as ListPage<unknown>;
  return page.data.map((team) => Team.parse(team));
}

export async function main(): Promise<void> {
  const upstream = await startWorker({ role: "upstream" });
  const gateways = {
    baseline: await startWorker({ role: "gateway", upstreamUrl: upstream.url }),
    control: await startWorker({ role: "gateway", upstreamUrl: upstream.url }),
    teamed: await startWorker({ role: "gateway", upstreamUrl: upstream.url, teamed: true }),
  };
  try {
    const target = (variant: Variant) => chatTarget(gateways[variant].url, { authorization: `Bearer ${gateways[variant].secret}` }, MODEL, false);
    const rounds = await measureSideBySide(
      Object.fromEntries(VARIANTS.map((variant) => [variant, { target: target(variant), threadStat: gateways[variant].threadStat! }])) as Record<Variant, SideVariant>,
      { rounds: ROUNDS, seconds: SECONDS, warmSeconds: WARM_SECONDS, connections: CONNECTIONS_EACH },
    );
    const errors = errorsOf(rounds);
    const ratioOf = (variant: Variant, figure: (cell: SideCell) => number) => medianRatio(rounds, variant, "baseline", figure);
    console.log(`load average while measuring (1, 5, 15 min): ${loadavg().map((load) => load.toFixed(1)).join(", ")} on ${cpus().length} cores`);
    printTable(
      `a key in a team: whole chat, three gateways loaded at once (${CONNECTIONS_EACH} connections each), ${ROUNDS} rounds of ${SECONDS} s`,
      rounds.map((cells, i) => ({
        round: i + 1,
        "baseline req/s": cells.baseline.requestsPerSecond.toFixed(0),
        "control req/s": cells.control.requestsPerSecond.toFixed(0),
        "teamed req/s": cells.teamed.requestsPerSecond.toFixed(0),
        "teamed / baseline": (cells.teamed.requestsPerSecond / cells.baseline.requestsPerSecond).toFixed(3),
        "control / baseline": (cells.control.requestsPerSecond / cells.baseline.requestsPerSecond).toFixed(3),
        "CPU µs/req baseline · control · teamed": VARIANTS.map((variant) => cells[variant].cpuMicrosPerRequest.toFixed(0)).join(" · "),
      })),
    );
    const teamed = ratioOf("teamed", requestsPerSecond);
    const [team] = await teamsOf(gateways.teamed.url, gateways.teamed.provisioningKey!);
    printTable("a key in a team: medians of the rounds' ratios to a key alone", [
      {
        "throughput, teamed": teamed.toFixed(3),
        "throughput, control (noise)": ratioOf("control", requestsPerSecond).toFixed(3),
        "the team's throughput cost": `${((1 - teamed) * 100).toFixed(1)}%`,
        "CPU per request, teamed": ratioOf("teamed", cpuPerRequest).toFixed(3),
        "CPU per request, control (noise)": ratioOf("control", cpuPerRequest).toFixed(3),
        target: "cost < 5%",
        errors,
        "team's daily window spent": team?.spendWindows[0]?.spentUnits ?? "none",
      },
    ]);
    if (!team || team.spendWindows[0]!.spentUnits === "0") throw new Error("the teamed key's requests were not charged to its team");
  } finally {
    await Promise.all(VARIANTS.map((variant) => gateways[variant].stop()));
    await upstream.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
