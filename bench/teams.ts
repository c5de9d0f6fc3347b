/**
 * What a key in a team costs (issue 37): whole Chat Completions through gateways configured alike
 * (bench/lib/gateway-paths.ts: an `openai` provider, every key policy on, request and response
 * logged on a SQLite file) to the same upstream. The key is in a team with every team limit set and
 * none reached (`teamed`: two spend windows, a rate limit, a model ceiling: each request reserves
 * from the key's window and both of the team's, and is admitted under the team's rate limit), in a
 * team with a spend policy only (`spend-team`: one window), or alone (the `baseline`, and a
 * `control` configured as the baseline). Measured two ways:
 *
 * 1. Side by side (bench/lib/side-by-side.ts): each gateway in its own worker thread, all loaded at
 *    once, 8 connections each, round after round; throughput and each thread's CPU per request,
 *    as medians of the rounds' ratios to the baseline (the control's ratio shows the noise).
 * 2. Instructions per request of the main thread (bench/lib/instructions.ts): each gateway as a process under
 *    valgrind's callgrind, the same requests counted after a warm-up. This one moves far less with
 *    what else the machine runs; the control shows how far two identical gateways' counts still
 *    differ (bench/README.md: up to 6% in one run), which bounds what one run can prove.
 *
 * Afterwards each team must show what its key spent.
 *
 * Run: npm run bench -- teams        (BENCH_SECONDS=N per round, default 5; BENCH_ROUNDS, default 8, 0 to skip the side by side;
 * BENCH_COUNTED=N requests counted per gateway, default 500, 0 to skip the instruction counts)
 * Target (issue 37): a key in a team costs < 5% of whole-chat throughput against a key alone.
 */
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListPage, Team } from "@gateway-keys/contract";
import { BENCH_UPSTREAM_ENV, benchGatewayConfigFile, chatTarget, createBenchKey, createBenchTeam, MODEL, startWorker, type BenchTeam, type Ready } from "./lib/gateway-paths.ts";
import { callgrindMissing, sendCounted, startCountedGateway } from "./lib/instructions.ts";
import { cpuPerRequest, errorsOf, measureSideBySide, medianRatio, printRounds, requestsPerSecond, wholeChatVariants } from "./lib/side-by-side.ts";
import { printTable } from "./lib/report.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const COUNTED = Number(process.env.BENCH_COUNTED ?? 500);
const CONNECTIONS_EACH = 8;
const WARM_SECONDS = 2;
/**
 * Connections of the counted requests: one, so that what a request does never hangs on how requests
 * overlap (with more, how many share a SQLite commit depends on timing, which valgrind changes).
 */
const COUNTED_CONNECTIONS = 1;
const TARGET_COST = 0.05;

/** Each variant and the team its key is in (none for a key alone). */
const VARIANTS = { baseline: undefined, control: undefined, teamed: "full", "spend-team": "spend" } as const satisfies Record<string, BenchTeam | undefined>;
type Variant = keyof typeof VARIANTS;
const NAMES = Object.keys(VARIANTS) as Variant[];
const TEAMED: Variant[] = ["teamed", "spend-team"];

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

const verdict = (cost: number) => (cost < TARGET_COST ? "met" : "NOT met");
const percent = (ratio: number) => `${((ratio - 1) * 100).toFixed(1)}%`;

/** Side by side in worker threads: throughput and CPU per request against the baseline. */
async function sideBySide(upstreamUrl: string): Promise<void> {
  const gateways = Object.fromEntries(
    await Promise.all(NAMES.map(async (name) => [name, await startWorker({ role: "gateway", upstreamUrl, ...(VARIANTS[name] && { team: VARIANTS[name] }) })])),
  ) as Record<Variant, Ready & { stop(): Promise<void> }>;
  try {
    const rounds = await measureSideBySide(wholeChatVariants(gateways), { rounds: ROUNDS, seconds: SECONDS, warmSeconds: WARM_SECONDS, connections: CONNECTIONS_EACH });
    printRounds(`a key in a team: whole chat, ${NAMES.length} gateways loaded at once (${CONNECTIONS_EACH} connections each), ${ROUNDS} rounds of ${SECONDS} s`, rounds);
    const rows = [];
    for (const name of ["control", ...TEAMED] as Variant[]) {
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
      const team = VARIANTS[name] ? { teamId: await createBenchTeam(url, provisioningKey!, VARIANTS[name]) } : {};
      const secret = await createBenchKey(url, provisioningKey!, "bench", team);
      return { name, counted, target: chatTarget(`${url}/v1`, { authorization: `Bearer ${secret}` }, MODEL, false) };
    }),
  );
  const gateways = started.flatMap((each) => (each.status === "fulfilled" ? [each.value] : []));
  try {
    const failed = started.find((each) => each.status === "rejected");
    if (failed) throw failed.reason;
    const perRequest = {} as Record<Variant, number>;
    for (const { name, counted, target } of gateways) {
      const total = await counted.count(
        () => sendCounted(target, COUNTED_CONNECTIONS, Math.max(100, COUNTED / 4)),
        () => sendCounted(target, COUNTED_CONNECTIONS, COUNTED),
      );
      perRequest[name] = total / COUNTED;
    }
    const rows = [];
    for (const { name, counted } of gateways) {
      const ratio = perRequest[name] / perRequest.baseline;
      const teamed = TEAMED.includes(name);
      rows.push({
        variant: name,
        "instructions / request": Math.round(perRequest[name]).toLocaleString("en"),
        "/ baseline": ratio.toFixed(3),
        "cost against a key alone": name === "baseline" ? "" : percent(ratio),
        target: teamed ? `< ${TARGET_COST * 100}%: ${verdict(ratio - 1)}` : "",
        "team's first window spent": teamed ? await requireCharged(name, counted.gateway.url, counted.gateway.provisioningKey!) : "",
      });
    }
    printTable(`instructions per whole chat (callgrind, the gateway process's main thread; ${COUNTED} requests over ${COUNTED_CONNECTIONS} connections after a warm-up)`, rows);
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
