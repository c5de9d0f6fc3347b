/**
 * What a key in a team costs (issue 37): whole Chat Completions through gateways configured alike
 * (bench/lib/gateway-paths.ts: an `openai` provider, every key policy on, request and response
 * logged on a SQLite file) to the same upstream. The key is in a team with every team limit set and
 * none reached (`teamed`: two spend windows, a rate limit, a model ceiling: each request reserves
 * from the key's window and both of the team's, and is admitted under the team's rate limit), in a
 * team with a spend policy only (`spend-team`: one window), or alone (the `baseline`, and a
 * `control` configured as the baseline). Beside them, `limits-alone`: a key alone holding the full
 * team's limits itself (its two windows and its rate limit), which shows what of the teamed key's
 * cost is those limits' own (a rate limit puts six `x-ratelimit-*` headers on every answer) and what
 * being in a team adds. Measured two ways:
 *
 * 1. Side by side (bench/lib/side-by-side.ts): each gateway in its own worker thread, all loaded at
 *    once, 8 connections each, round after round; throughput and each thread's CPU per request,
 *    as medians of the rounds' ratios to the baseline (the control's ratio shows the noise).
 * 2. Instructions per request of the main thread (bench/lib/instructions.ts): each gateway as a process under
 *    valgrind's callgrind, the same requests counted after a warm-up. This one moves far less with
 *    what else the machine runs; the control shows how far two identical gateways' counts still
 *    differ (bench/README.md has the runs), which bounds what one run can prove.
 *
 * Afterwards each team must show what its key spent.
 *
 * Run: npm run bench -- teams        (BENCH_SECONDS=N per round, default 5; BENCH_ROUNDS, default 8, 0 to skip the side by side;
 * BENCH_COUNTED=N requests counted per gateway, default 500, 0 to skip the instruction counts; BENCH_WARM=N uncounted before, default 2000; BENCH_COUNT_PASSES, default 1;
 * BENCH_VARIANTS=control,teamed to measure only those beside the baseline)
 * Target (issue 37): a key in a team costs < 5% of whole-chat throughput against a key alone.
 */
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListPage, Team } from "@gateway-keys/contract";
import {
  BENCH_UPSTREAM_ENV,
  benchGatewayConfigFile,
  chatTarget,
  createBenchKey,
  createBenchTeam,
  FULL_TEAM_LIMITS_ON_A_KEY,
  MODEL,
  startWorker,
  type BenchTeam,
  type Ready,
} from "./lib/gateway-paths.ts";
import { callgrindMissing, COUNT_CONNECTIONS, COUNT_WARM, compilingColumn, countEach, startCountedGateway, withoutCompiling } from "./lib/instructions.ts";
import { cpuPerRequest, errorsOf, measureSideBySide, medianRatio, printRounds, requestsPerSecond, wholeChatVariants } from "./lib/side-by-side.ts";
import { printTable } from "./lib/report.ts";
import { variantMeasured } from "./lib/variants.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const COUNTED = Number(process.env.BENCH_COUNTED ?? 500);
const COUNT_PASSES = Number(process.env.BENCH_COUNT_PASSES ?? 1);
const CONNECTIONS_EACH = 8;
const WARM_SECONDS = 2;
const TARGET_COST = 0.05;

/** Each variant: the team its key is in (none for a key alone), and what its key holds beyond the bench key's policies. */
type Variant = "baseline" | "control" | "teamed" | "spend-team" | "limits-alone";
const VARIANTS: Record<Variant, { team?: BenchTeam; keyPolicies?: object }> = {
  baseline: {},
  control: {},
  teamed: { team: "full" },
  "spend-team": { team: "spend" },
  "limits-alone": { keyPolicies: FULL_TEAM_LIMITS_ON_A_KEY },
};
/** The variants measured: all, or those `BENCH_VARIANTS` names beside the baseline. */
const NAMES = (Object.keys(VARIANTS) as Variant[]).filter((name) => variantMeasured(name, ["baseline"]));
const TEAMED: Variant[] = ["teamed", "spend-team"];
const teamOf = (name: Variant): BenchTeam | undefined => VARIANTS[name].team;
const keyPoliciesOf = (name: Variant): object => VARIANTS[name].keyPolicies ?? {};

/** The teams of a gateway's owner, as it reports them. */
async function teamsOf(url: string, provisioningKey: string): Promise<Team[]> {
  const origin = new URL(url).origin;
  const page = (await (await fetch(`${origin}/v1/account/teams`, { headers: { authorization: `Bearer ${provisioningKey}` } })).json()) as ListPage<unknown>;
  return page.data.map((team) => Team.parse(team));
}

/** Throws unless the gateway's team shows what its key was charged. */
async function requireCharged(variant: Variant, url: string, provisioningKey: string): Promise<string> {
  const [team] = await teamsOf(url, provisioningKey);
  const spent = team?.spendWindows[0]?.spentUnits;
  if (!spent || spent === "0") throw new Error(`the ${variant} key's requests were not charged to its team`);
  return spent;
}

/**
 * The row of what being in a team adds to the same limits: the teamed key against the key alone
 * holding its team's limits (`cost`: the fraction more the teamed key costs), in the table's `column`. For reading the table, not the target, which is against a key alone.
 */
function beingInATeam(cost: number, column: string): Record<string, string> {
  return { variant: "teamed against limits-alone", [column]: `${(cost * 100).toFixed(1)}%`, target: "(what a team adds to the same limits)" };
}

const verdict = (cost: number) => (cost < TARGET_COST ? "met" : "NOT met");
const percent = (ratio: number) => `${((ratio - 1) * 100).toFixed(1)}%`;

/** Side by side in worker threads: throughput and CPU per request against the baseline. */
async function sideBySide(upstreamUrl: string): Promise<void> {
  const gateways = Object.fromEntries(
    await Promise.all(NAMES.map(async (name) => [name, await startWorker({ role: "gateway", upstreamUrl, team: teamOf(name), keyPolicies: keyPoliciesOf(name) })])),
  ) as Record<Variant, Ready & { stop(): Promise<void> }>;
  try {
    const rounds = await measureSideBySide(wholeChatVariants(gateways), { rounds: ROUNDS, seconds: SECONDS, warmSeconds: WARM_SECONDS, connections: CONNECTIONS_EACH });
    printRounds(`a key in a team: whole chat, ${NAMES.length} gateways loaded at once (${CONNECTIONS_EACH} connections each), ${ROUNDS} rounds of ${SECONDS} s`, rounds);
    const rows = [];
    for (const name of NAMES.filter((name) => name !== "baseline")) {
      const throughput = medianRatio(rounds, name, "baseline", requestsPerSecond);
      rows.push({
        variant: name,
        "throughput / baseline": throughput.toFixed(3),
        "CPU per request / baseline": medianRatio(rounds, name, "baseline", cpuPerRequest).toFixed(3),
        "throughput cost": `${((1 - throughput) * 100).toFixed(1)}%`,
        target: TEAMED.includes(name) ? `< ${TARGET_COST * 100}%: ${verdict(1 - throughput)}` : "",
        "team's first window spent": TEAMED.includes(name) ? await requireCharged(name, gateways[name].url, gateways[name].provisioningKey!) : "",
      });
    }
    if (NAMES.includes("teamed") && NAMES.includes("limits-alone")) {
      const teamed = medianRatio(rounds, "teamed", "baseline", requestsPerSecond) / medianRatio(rounds, "limits-alone", "baseline", requestsPerSecond);
      rows.push(beingInATeam(1 - teamed, "throughput cost"));
    }
    printTable(`side by side: medians of the rounds' ratios to a key alone (the control's: the noise); errors ${errorsOf(rounds)}`, rows);
  } finally {
    await Promise.all(NAMES.map((name) => gateways[name].stop()));
  }
}

/** Each variant as a process under callgrind: instructions per request against the baseline's. */
async function instructions(upstreamUrl: string): Promise<void> {
  const missing = await callgrindMissing();
  if (missing) {
    console.log(`instruction counts skipped: ${missing}`);
    return;
  }
  const configPath = join(tmpdir(), `bench-teams-config-${process.pid}.json`);
  writeFileSync(configPath, JSON.stringify(benchGatewayConfigFile(upstreamUrl)));
  // Started together (each takes a minute or more under valgrind), counted one after another.
  const started = await Promise.allSettled(
    NAMES.map(async (name) => {
      const counted = await startCountedGateway({
        bootstrap: { ownerId: "bench" },
        args: ["--config", configPath, "--rate-limit", "1000000000", "--rate-burst", "1000000000"],
        env: BENCH_UPSTREAM_ENV,
      });
      const { url, provisioningKey } = counted.gateway;
      const team = teamOf(name);
      const membership = team ? { teamId: await createBenchTeam(url, provisioningKey!, team) } : {};
      const secret = await createBenchKey(url, provisioningKey!, "bench", { ...membership, ...keyPoliciesOf(name) });
      return { name, counted, target: chatTarget(`${url}/v1`, { authorization: `Bearer ${secret}` }, MODEL, false) };
    }),
  );
  const gateways = started.flatMap((each) => (each.status === "fulfilled" ? [each.value] : []));
  try {
    const failed = started.find((each) => each.status === "rejected");
    if (failed) throw failed.reason;
    const counts = await countEach(gateways, { warm: COUNT_WARM, counted: COUNTED, passes: COUNT_PASSES });
    const perRequest = Object.fromEntries(NAMES.map((name) => [name, counts[name].instructions])) as Record<Variant, number>;
    const eventLoop = Object.fromEntries(NAMES.map((name) => [name, withoutCompiling(counts[name])])) as Record<Variant, number>;
    const rows = [];
    for (const { name, counted } of gateways) {
      const ratio = perRequest[name] / perRequest.baseline;
      const eventLoopRatio = eventLoop[name] / eventLoop.baseline;
      const teamed = TEAMED.includes(name);
      rows.push({
        variant: name,
        "instructions / request": Math.round(perRequest[name]).toLocaleString("en"),
        "passes' spread": percent(1 + counts[name].spread),
        "cost against a key alone": name === "baseline" ? "" : percent(ratio),
        target: teamed ? `< ${TARGET_COST * 100}%: ${verdict(ratio - 1)}` : "",
        "of which V8 compiling": compilingColumn(counts[name]),
        "without compiling": Math.round(eventLoop[name]).toLocaleString("en"),
        "cost without compiling": name === "baseline" ? "" : percent(eventLoopRatio),
        "target without compiling": teamed ? `< ${TARGET_COST * 100}%: ${verdict(eventLoopRatio - 1)}` : "",
        "team's first window spent": teamed ? await requireCharged(name, counted.gateway.url, counted.gateway.provisioningKey!) : "",
      });
    }
    if (NAMES.includes("teamed") && NAMES.includes("limits-alone")) {
      rows.push({
        ...beingInATeam(perRequest.teamed / perRequest["limits-alone"] - 1, "cost against a key alone"),
        "cost without compiling": percent(eventLoop.teamed / eventLoop["limits-alone"]),
      });
    }
    printTable(
      `instructions per whole chat (callgrind, the gateway process's main thread; ${COUNTED} requests over ${COUNT_CONNECTIONS} connection(s) after ${COUNT_WARM} uncounted, the lowest of ${COUNT_PASSES} pass(es), each from a collected heap)`,
      rows,
    );
  } finally {
    await Promise.all(gateways.map(({ counted }) => counted.stop()));
    rmSync(configPath, { force: true });
  }
}

export async function main(): Promise<void> {
  const upstream = await startWorker({ role: "upstream" });
  try {
    if (ROUNDS > 0) await sideBySide(upstream.url);
    if (COUNTED > 0) await instructions(upstream.url);
  } finally {
    await upstream.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
