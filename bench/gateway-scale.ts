/**
 * Scaling out on PostgreSQL: model requests (`POST /v1/chat/completions`, echo-1, a key with a
 * spend limit, a model allow-list and request/response logging — every policy on) at 16
 * connections against
 *   sqlite    one `gateway serve` process on a SQLite file (the baseline)
 *   pg × 1    one process on a throw-away PostgreSQL (testkit/postgres.ts)
 *   pg × 2    two processes on that database, 8 connections each, at the same time
 * in two workloads: every connection on one key (the hottest case: all requests charge one
 * account row) and each connection on its own key. It prints throughput, p50/p99, CPU time per
 * request (gateway processes, and the database's processes) and the statements each request sent
 * to PostgreSQL (pg_stat_statements; node-pg sends one statement per round trip; a request alone
 * sends one, its settle, and concurrent requests share batched ones, so under load it falls below
 * one), then how long a revoke on one process takes to be refused by the other. The load
 * generator, the database and the gateways share this machine's cores.
 *
 * Every process is warmed up first; then the setups take turns for several rounds and the table
 * shows medians (this machine's speed drifts by a third from minute to minute).
 *
 * Run: npm run bench -- gateway-scale        (BENCH_SECONDS=N per cell, default 5; BENCH_ROUNDS, default 3)
 * Targets: PostgreSQL in one process ≥ 0.5 × SQLite's throughput; two processes not slower than one.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import pg from "pg";
import type { ApiKeyWithSecret } from "@gateway-keys/contract";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { postgresUnavailableReason, startPostgres } from "@gateway-keys/testkit/postgres";
import { loadWhole, mergeWhole, type Target, type WholeCell } from "./lib/load.ts";
import { cpuSeconds } from "./lib/process-cpu.ts";
import { median, printTable } from "./lib/report.ts";

const CONNECTIONS = 16;
/** Load on every process before any measuring, so each runs optimised code. */
const WARM_SECONDS = 5;
/** Load on a setup just before each of its cells (caches, pools and holdings refilled). */
const REWARM_SECONDS = 1;
const NO_RATE_LIMIT = ["--rate-limit", "1000000000", "--rate-burst", "1000000000"];
const BODY = JSON.stringify({ model: "echo-1", messages: [{ role: "user", content: "Say something about a fox and a dog." }], max_tokens: 64 });

/** CPU seconds so far of each PostgreSQL server process on the machine (the bench's server is the only one), by pid. */
function databaseCpuSeconds(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") byPid.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {
      // ended meanwhile
    }
  }
  return byPid;
}

/**
 * CPU seconds the database's processes used between two readings: per process, so a backend that
 * ended meanwhile (a pool closing an idle connection) takes its earlier CPU time out of neither
 * reading (summing all then subtracting did, and read implausibly low), and one that started
 * counts whole.
 */
function databaseCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let used = 0;
  for (const [pid, seconds] of after) used += seconds - (before.get(pid) ?? 0);
  return used;
}

/** A regular key on the gateway with every policy on. */
async function createKey(gateway: GatewayProcess): Promise<string> {
  const answer = await fetch(`${gateway.url}/v1/account/api-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${gateway.provisioningKey}`, "content-type": "application/json", "idempotency-key": randomBytes(8).toString("hex") },
    body: JSON.stringify({
      name: "bench",
      spendPolicy: { limitUnits: "1000000000" },
      loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 30 },
      modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
    }),
  });
  if (answer.status !== 201) throw new Error(`creating the bench key answered ${answer.status}`);
  return ((await answer.json()) as ApiKeyWithSecret).secret;
}

/** Requests to `gateway`, each connection with the next of `secrets` (one key for all, or one each). */
const target = (gateway: GatewayProcess, secrets: readonly string[]): Target => ({
  origin: gateway.url,
  path: "/v1/chat/completions",
  headers: {},
  headersPerConnection: secrets.map((secret) => ({ authorization: `Bearer ${secret}` })),
  body: BODY,
});

/** The workloads: every connection on one key (the hottest case: one account row), or each on its own key. */
type Workload = "1 key" | `${number} keys`;

/** Statements PostgreSQL has run in the bench database so far. */
async function statementsRun(admin: pg.Client): Promise<number> {
  const result = await admin.query<{ calls: string | null }>(
    "SELECT sum(calls)::text AS calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
  );
  return Number(result.rows[0]?.calls ?? 0);
}

interface ScaleRow {
  setup: Setup;
  workload: Workload;
  cell: WholeCell;
  requests: number;
  gatewayCpuMsPerRequest: number;
  databaseCpuMsPerRequest: number | undefined;
  statementsPerRequest: number | undefined;
}

type Setup = "sqlite, 1 process" | "postgres, 1 process" | "postgres, 2 processes";

/** Load on `gateways` together: the connections split evenly, and the keys with them. */
function loadTogether(gateways: GatewayProcess[], secrets: readonly string[], connections: number, seconds: number): Promise<WholeCell[]> {
  const share = (index: number) => (secrets.length === 1 ? secrets : secrets.filter((_, at) => at % gateways.length === index));
  return Promise.all(gateways.map((gateway, index) => loadWhole(target(gateway, share(index)), connections / gateways.length, seconds)));
}

/** Drives the gateways together for `seconds` and measures what it cost. */
async function measure(
  setup: Setup,
  gateways: GatewayProcess[],
  secrets: readonly string[],
  seconds: number,
  admin?: pg.Client,
  connections = CONNECTIONS,
): Promise<ScaleRow> {
  // Caches, pools and holdings refilled after the other setups' turns.
  await loadTogether(gateways, secrets, connections, REWARM_SECONDS);
  const gatewayCpuBefore = gateways.reduce((sum, gateway) => sum + cpuSeconds(gateway.child.pid!), 0);
  const databaseCpuBefore = admin ? databaseCpuSeconds() : undefined;
  const statementsBefore = admin ? await statementsRun(admin) : 0;
  const cell = mergeWhole(await loadTogether(gateways, secrets, connections, seconds));
  const statementsAfter = admin ? await statementsRun(admin) : 0;
  const requests = cell.latencies.length;
  const gatewayCpu = gateways.reduce((sum, gateway) => sum + cpuSeconds(gateway.child.pid!), 0) - gatewayCpuBefore;
  return {
    setup,
    workload: secrets.length === 1 ? "1 key" : `${secrets.length} keys`,
    cell,
    requests,
    gatewayCpuMsPerRequest: (gatewayCpu * 1000) / requests,
    databaseCpuMsPerRequest: databaseCpuBefore ? (databaseCpuBetween(databaseCpuBefore, databaseCpuSeconds()) * 1000) / requests : undefined,
    // The one statement counting them is the only other one in the window.
    statementsPerRequest: admin ? (statementsAfter - statementsBefore - 1) / requests : undefined,
  };
}

/** Revokes a key on `on` and times, from the revoke's answer, until `other` refuses it. */
async function revocationDelayMs(on: GatewayProcess, other: GatewayProcess): Promise<number> {
  const created = await fetch(`${on.url}/v1/account/api-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${on.provisioningKey}`, "content-type": "application/json", "idempotency-key": randomBytes(8).toString("hex") },
    body: JSON.stringify({ name: "revoked in the bench" }),
  });
  const key = (await created.json()) as ApiKeyWithSecret;
  const ask = async () => {
    const answer = await fetch(`${other.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" }, body: BODY });
    await answer.arrayBuffer();
    return answer.status;
  };
  // Served on the other process first, so the key sits in its cache.
  if ((await ask()) !== 200) throw new Error("the fresh key was refused before its revocation");
  const revoked = await fetch(`${on.url}/v1/account/api-keys/${key.keyId}/revoke`, {
    method: "POST",
    headers: { authorization: `Bearer ${on.provisioningKey}`, "content-type": "application/json", "idempotency-key": randomBytes(8).toString("hex") },
    body: JSON.stringify({ expectedVersion: key.version }),
  });
  if (revoked.status !== 200) throw new Error(`the revoke answered ${revoked.status}`);
  const start = performance.now();
  for (;;) {
    const status = await ask();
    if (status === 401) return performance.now() - start;
    if (performance.now() - start > 5_000) throw new Error("the revoked key was still served after 5 s");
  }
}

export async function main(): Promise<ScaleRow[]> {
  const unavailable = postgresUnavailableReason();
  if (unavailable !== undefined) {
    console.log(`gateway-scale: skipped: ${unavailable}`);
    return [];
  }
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const encryptionKey = randomBytes(32).toString("base64");
  const rows: ScaleRow[] = [];
  const processes: GatewayProcess[] = [];
  const server = await startPostgres({ settings: { shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track": "top" } });
  const databaseUrl = await server.createDatabase();
  const admin = new pg.Client({ connectionString: databaseUrl });
  const delays: number[] = [];
  /** SQLite's process at half the connections, as each process of pg × 2 serves: what a process's lighter load costs per request, without any database. */
  const halfLoaded: ScaleRow[] = [];
  try {
    await admin.connect();
    await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");

    const keysFor = async (gateway: GatewayProcess) => {
      const all: string[] = [];
      for (let i = 0; i < CONNECTIONS; i++) all.push(await createKey(gateway));
      return { one: all.slice(0, 1), each: all };
    };
    const sqlite = await startGatewayProcess({ bootstrap: { ownerId: "bench" }, args: NO_RATE_LIMIT });
    processes.push(sqlite);
    const sqliteKeys = await keysFor(sqlite);
    const env = { GATEWAY_ENCRYPTION_KEY: encryptionKey };
    const first = await startGatewayProcess({ databaseUrl, bootstrap: { ownerId: "bench" }, args: NO_RATE_LIMIT, env });
    processes.push(first);
    const second = await startGatewayProcess({ databaseUrl, args: NO_RATE_LIMIT, env });
    processes.push(second);
    const postgresKeys = await keysFor(first);

    const cells: Array<{ setup: Setup; gateways: GatewayProcess[]; keys: { one: string[]; each: string[] }; admin?: pg.Client }> = [
      { setup: "sqlite, 1 process", gateways: [sqlite], keys: sqliteKeys },
      { setup: "postgres, 1 process", gateways: [first], keys: postgresKeys, admin },
      { setup: "postgres, 2 processes", gateways: [first, second], keys: postgresKeys, admin },
    ];
    // Every process's code optimised (V8 compiles hot functions after thousands of calls) before
    // any cell counts: a process measured cold serves far fewer requests, whichever store it runs.
    for (const gateway of processes) await loadTogether([gateway], gateway === sqlite ? sqliteKeys.each : postgresKeys.each, CONNECTIONS, WARM_SECONDS);
    // The setups take turns, round after round, so a slower spell of this shared machine falls on
    // all of them rather than on one; each figure below is a median over the rounds.
    for (let round = 0; round < rounds; round++) {
      for (const workload of ["one", "each"] as const) {
        for (const cell of cells) rows.push(await measure(cell.setup, cell.gateways, cell.keys[workload], seconds, cell.admin));
      }
      halfLoaded.push(await measure("sqlite, 1 process", [sqlite], sqliteKeys.one, seconds, undefined, CONNECTIONS / 2));
    }
    for (let trial = 0; trial < 5; trial++) delays.push(await revocationDelayMs(first, second));
  } finally {
    for (const gateway of processes) await gateway.stop();
    await admin.end().catch(() => undefined);
    await server.stop();
  }

  const workloads = [...new Set(rows.map((row) => row.workload))];
  const setups = [...new Set(rows.map((row) => row.setup))];
  const of = (setup: Setup, workload: Workload) => rows.filter((row) => row.setup === setup && row.workload === workload);
  /** Per round, a setup's throughput over SQLite's in the same round and workload. */
  const ratios = (setup: Setup, over: Setup, workload: Workload) => {
    const baseline = of(over, workload);
    return of(setup, workload).map((row, round) => row.cell.requestsPerSecond / baseline[round]!.cell.requestsPerSecond);
  };
  const ms = (value: number | undefined) => (value === undefined ? "—" : value.toFixed(3));
  const medianOf = (list: ScaleRow[], pick: (row: ScaleRow) => number | undefined) => {
    const values = list.map(pick).filter((value): value is number => value !== undefined);
    return values.length === 0 ? undefined : median(values);
  };
  printTable(
    `gateway-scale: POST /v1/chat/completions (echo-1, every policy on) at ${CONNECTIONS} connections; medians of ${rounds} rounds of ${seconds} s per cell`,
    workloads.flatMap((workload) =>
      setups.map((setup) => {
        const list = of(setup, workload);
        const latencies = mergeWhole(list.map((row) => row.cell));
        const statements = medianOf(list, (row) => row.statementsPerRequest);
        return {
          setup,
          workload,
          "req/s": Math.round(medianOf(list, (row) => row.cell.requestsPerSecond)!),
          "vs sqlite": median(ratios(setup, "sqlite, 1 process", workload)).toFixed(2),
          "p50 / p99 (ms)": `${ms(latencies.p50)} / ${ms(latencies.p99)}`,
          "gateway CPU ms/req": ms(medianOf(list, (row) => row.gatewayCpuMsPerRequest)),
          "database CPU ms/req": ms(medianOf(list, (row) => row.databaseCpuMsPerRequest)),
          "statements/req": statements === undefined ? "—" : statements.toFixed(2),
          errors: list.reduce((sum, row) => sum + row.cell.errors, 0),
        };
      }),
    ),
  );
  console.log(
    `revocation on one process → refused on the other: median ${median(delays).toFixed(1)} ms, max ${Math.max(...delays).toFixed(1)} ms over ${delays.length} trials (bound: 1000 ms)`,
  );
  const fullyLoadedCpu = medianOf(of("sqlite, 1 process", "1 key"), (row) => row.gatewayCpuMsPerRequest)!;
  const halfLoadedCpu = medianOf(halfLoaded, (row) => row.gatewayCpuMsPerRequest)!;
  console.log(
    `one process's share of the load (no database): sqlite at ${CONNECTIONS / 2} connections uses ${halfLoadedCpu.toFixed(3)} gateway CPU ms/req, ` +
      `${(halfLoadedCpu / fullyLoadedCpu).toFixed(2)} × its ${fullyLoadedCpu.toFixed(3)} at ${CONNECTIONS} (1 key): what each process of pg × 2 pays for serving half`,
  );
  const range = (values: number[]) => `rounds ${values.map((value) => value.toFixed(2)).join(", ")}`;
  for (const workload of workloads) {
    const ofSqlite = ratios("postgres, 1 process", "sqlite, 1 process", workload);
    const scale = ratios("postgres, 2 processes", "postgres, 1 process", workload);
    console.log(
      `targets (${workload}): postgres × 1 at ${median(ofSqlite).toFixed(2)} of sqlite ≥ 0.5 ${median(ofSqlite) >= 0.5 ? "met" : "NOT met"} (${range(ofSqlite)}); ` +
        `postgres × 2 at ${median(scale).toFixed(2)} of × 1 ≥ 1 ${median(scale) >= 1 ? "met" : "NOT met"} (${range(scale)})`,
    );
  }
  console.log(`target: revocation bound ${Math.max(...delays) <= 1000 ? "met" : "NOT met"}`);
  return rows;
}

if (import.meta.main) await main();
