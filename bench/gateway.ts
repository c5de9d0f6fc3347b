/**
 * Gateway overhead: `POST /v1/responses` through the whole gateway (auth, rate limit, model policy,
 * spend reservation and settlement, a log row with request and response stored, on a SQLite file)
 * against a bare `node:http` server answering the same body, in the same run, on loopback.
 *
 * Each server runs in its own worker thread, so the load generator (autocannon, main thread) and
 * the server do not share an event loop. Latencies are autocannon's per-response times in ms
 * (sub-millisecond resolution), collected here rather than from its integer histogram.
 *
 * Run: npm run bench -- gateway   (or: node bench/gateway.ts under Node >= 24)
 * Targets: throughput ratio >= 0.6 and added p99 <= 0.5 ms.
 */
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import autocannon from "autocannon";
import { startGateway } from "@gateway-keys/gateway";
import type { ApiKeyWithSecret } from "@gateway-keys/contract";
import { printTable } from "./lib/report.ts";

const INPUT = "The quick brown fox jumps over the lazy dog.";
const REQUEST_BODY = JSON.stringify({ model: "echo-1", input: INPUT });

/** What a server worker reports once it listens. */
interface Ready {
  url: string;
  secret: string;
  /** The exact body the gateway answers, for the bare server to copy. */
  sample?: string;
}

type Role = "gateway" | "bare";

/** Worker side: the gateway on a fresh SQLite file, with one regular key whose policies all apply. */
async function serveGateway(storage: "file" | "memory"): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gateway-bench-"));
  const gateway = await startGateway({
    dbPath: storage === "memory" ? ":memory:" : join(dir, "bench.db"),
    bootstrap: { ownerId: "bench" },
    // The default (200 req/s per key) would measure the rate limiter, not the gateway.
    rateLimit: { ratePerSecond: 1e9, burst: 1e9 },
  });
  const created = await fetch(`${gateway.url}/v1/account/api-keys`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${gateway.provisioningKey}`,
      "content-type": "application/json",
      "idempotency-key": "bench-key",
    },
    body: JSON.stringify({
      name: "bench",
      spendPolicy: { limitUnits: "1000000000" },
      loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 30 },
      modelPolicy: { mode: "allowList", modelIds: ["echo-1"] },
    }),
  });
  const key = (await created.json()) as ApiKeyWithSecret;
  const sample = await fetch(`${gateway.url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
    body: REQUEST_BODY,
  });
  parentPort!.postMessage({ url: gateway.url, secret: key.secret, sample: await sample.text() } satisfies Ready);
  parentPort!.once("message", async () => {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

/** Worker side: the floor — read the body, answer a fixed JSON body. */
function serveBare(sample: string): void {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      JSON.parse(Buffer.concat(chunks).toString("utf8"));
      response.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(sample) });
      response.end(sample);
    });
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address() as { port: number };
    parentPort!.postMessage({ url: `http://127.0.0.1:${address.port}`, secret: "" } satisfies Ready);
  });
  parentPort!.once("message", () => server.close(() => process.exit(0)));
}

/** A server in a worker thread; `stop` ends it. */
async function startWorker(role: Role, sample?: string, storage: "file" | "memory" = "file"): Promise<Ready & { stop(): Promise<void> }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { role, sample, storage } });
  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    ...ready,
    stop: async () => {
      worker.postMessage("stop");
      await new Promise((resolve) => worker.once("exit", resolve));
    },
  };
}

/** One measured cell. */
export interface Cell {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/** Drives `url` with autocannon for `seconds` at `connections`. */
async function load(url: string, secret: string, connections: number, seconds: number): Promise<Cell> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}/v1/responses`,
        method: "POST",
        connections,
        duration: seconds,
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: REQUEST_BODY,
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on("response", (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      latencies.push(responseTime);
    });
  });
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: result.requests.total / (result.duration || seconds),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

/** One row of the result: the same concurrency through the gateway and the bare server. */
export interface GatewayBenchRow {
  connections: number;
  bare: Cell;
  gateway: Cell;
  ratio: number;
  addedP50: number;
  addedP99: number;
}

export interface GatewayBenchOptions {
  /** Seconds per measured cell. Default 5. */
  seconds?: number;
  /** Concurrency levels. Default [1, 16]. */
  connections?: number[];
  /** The gateway's database: a SQLite file (default, as deployed) or `:memory:` (no disk I/O). */
  storage?: "file" | "memory";
}

/** Runs the benchmark and returns its rows (also printed by {@link main}). */
export async function benchGateway(options: GatewayBenchOptions = {}): Promise<GatewayBenchRow[]> {
  const seconds = options.seconds ?? 5;
  const levels = options.connections ?? [1, 16];
  const gatewayServer = await startWorker("gateway", undefined, options.storage ?? "file");
  const bareServer = await startWorker("bare", gatewayServer.sample);
  const rows: GatewayBenchRow[] = [];
  try {
    // Warm both (JIT, SQLite page cache) before anything is measured.
    await load(bareServer.url, "", 4, 1);
    await load(gatewayServer.url, gatewayServer.secret, 4, 1);
    for (const connections of levels) {
      const bare = await load(bareServer.url, "", connections, seconds);
      const gateway = await load(gatewayServer.url, gatewayServer.secret, connections, seconds);
      rows.push({
        connections,
        bare,
        gateway,
        ratio: gateway.requestsPerSecond / bare.requestsPerSecond,
        addedP50: gateway.p50 - bare.p50,
        addedP99: gateway.p99 - bare.p99,
      });
    }
  } finally {
    await gatewayServer.stop();
    await bareServer.stop();
  }
  return rows;
}

export async function main(): Promise<GatewayBenchRow[]> {
  // BENCH_GATEWAY_STORAGE=memory measures the same without disk I/O, to separate the two.
  const rows = await benchGateway({ storage: process.env.BENCH_GATEWAY_STORAGE === "memory" ? "memory" : "file" });
  const ms = (value: number) => value.toFixed(3);
  printTable(
    "gateway: POST /v1/responses through the gateway vs a bare node:http server (loopback, 5 s per cell)",
    rows.map((row) => ({
      connections: row.connections,
      "bare req/s": Math.round(row.bare.requestsPerSecond),
      "gateway req/s": Math.round(row.gateway.requestsPerSecond),
      ratio: row.ratio.toFixed(2),
      "bare p50/p99 (ms)": `${ms(row.bare.p50)} / ${ms(row.bare.p99)}`,
      "gateway p50/p99 (ms)": `${ms(row.gateway.p50)} / ${ms(row.gateway.p99)}`,
      "added p50/p99 (ms)": `${ms(row.addedP50)} / ${ms(row.addedP99)}`,
      errors: row.bare.errors + row.gateway.errors,
    })),
  );
  const ratioMet = rows.every((row) => row.ratio >= 0.6);
  const latencyMet = rows.every((row) => row.addedP99 <= 0.5);
  console.log(`targets: ratio >= 0.6 ${ratioMet ? "met" : "NOT met"}; added p99 <= 0.5 ms ${latencyMet ? "met" : "NOT met"}`);
  return rows;
}

if (!isMainThread) {
  const { role, sample, storage } = workerData as { role: Role; sample?: string; storage: "file" | "memory" };
  if (role === "gateway") await serveGateway(storage);
  else serveBare(sample!);
} else if (import.meta.main) {
  await main();
}
