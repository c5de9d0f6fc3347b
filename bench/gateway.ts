/**
 * What the gateway adds in front of a model server: Chat Completions, whole and streamed, at 1 and
 * 16 connections, on three paths to the same upstream (bench/lib/chat-upstream.ts), in one run:
 *   bare     client → upstream
 *   floor    client → the least a Node proxy does (bench/lib/floor-proxy.ts) → upstream: the bound
 *            any gateway on this machine is measured against, since a proxied request makes two
 *            loopback hops where a bare one makes one
 *   gateway  client → our gateway → upstream: a configured `openai` provider, with key auth, rate
 *            limit, model policy, spend reservation and settlement, and a log row storing request
 *            and response on a SQLite file — everything on, as deployed
 *   portkey  client → Portkey's open-source gateway (pass-through, no auth) → upstream; whole
 *            answers only (its streaming fails on Node; the run checks and says so)
 * Upstream and gateway each run in their own worker thread, Portkey in its own process, the load
 * generator on the main thread: on a 2-core machine they all share two cores, as the issue says.
 *
 * Then the cost of a key's rate limit policy (issue: key policies): whole answers at 16 connections
 * with two keys of the same gateway, one without a rate policy and one with every limit set (none
 * ever reached), alternated over rounds in the same run. Target: under 5% of throughput.
 *
 * Last, the resident memory a gateway process holds per open stream (bench/lib/open-streams.ts).
 *
 * Run: npm run bench -- gateway        (BENCH_SECONDS=N per cell, default 5)
 * Targets (issue: faithful forwarding): whole and streamed chat at 16 connections ≥ 0.8 of the
 * floor's throughput; added p50 at 1 connection ≤ 2 × the floor's; ≤ 64 KiB per open stream;
 * ahead of Portkey.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { GatewayConfig, startGateway } from "@gateway-keys/gateway";
import type { ApiKeyWithSecret } from "@gateway-keys/contract";
import { startChatUpstream } from "./lib/chat-upstream.ts";
import { startFloorProxy } from "./lib/floor-proxy.ts";
import { loadStreams, loadWhole, type StreamCell, type Target, type WholeCell } from "./lib/load.ts";
import { measureOpenStreams } from "./lib/open-streams.ts";
import { startPortkey } from "./lib/portkey.ts";
import { printTable } from "./lib/report.ts";

const MODEL = "bench-chat";
const UPSTREAM_KEY_ENV = "BENCH_UPSTREAM_KEY";
const PROMPT = { messages: [{ role: "user", content: "Say something about a fox and a dog." }], max_tokens: 64 };

type Role = { role: "upstream" } | { role: "gateway" | "floor"; upstreamUrl: string };

/** What a worker reports once it listens. */
interface Ready {
  /** Base URL of its OpenAI-wire API (ending in /v1). */
  url: string;
  /** The regular key's secret, for the gateway. */
  secret?: string;
  /** A key like `secret`'s, plus a rate limit policy with every limit set and never reached. */
  limitedSecret?: string;
}

/** Worker side: the gateway on a fresh SQLite file, forwarding `bench-chat` to the upstream, with one key whose policies all apply. */
async function serveGateway(upstreamUrl: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gateway-bench-"));
  process.env[UPSTREAM_KEY_ENV] = "upstream-key-unused";
  const config = GatewayConfig.parse({
    providers: { upstream: { wire: "openai", baseUrl: upstreamUrl, apiKeyEnv: UPSTREAM_KEY_ENV } },
    models: [
      {
        id: MODEL,
        family: "chat",
        routes: [{ provider: "upstream", model: "bench-upstream" }],
        pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "2" },
        maxOutputTokens: 256,
      },
    ],
  });
  const gateway = await startGateway({
    dbPath: join(dir, "bench.db"),
    config,
    bootstrap: { ownerId: "bench" },
    // The default (200 req/s per key) would measure the rate limiter, not the gateway.
    rateLimit: { ratePerSecond: 1e9, burst: 1e9 },
  });
  const createKey = async (name: string, extra: object) => {
    const created = await fetch(`${gateway.url}/v1/account/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${gateway.provisioningKey}`, "content-type": "application/json", "idempotency-key": `bench-${name}` },
      body: JSON.stringify({
        name,
        spendPolicy: { limitUnits: "1000000000" },
        loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 30 },
        modelPolicy: { mode: "allowList", modelIds: [MODEL] },
        ...extra,
      }),
    });
    return ((await created.json()) as ApiKeyWithSecret).secret;
  };
  const secret = await createKey("bench", {});
  const limitedSecret = await createKey("bench-limited", {
    rateLimitPolicy: { requestsPerMinute: 1_000_000, tokensPerMinute: 10_000_000_000, maxConcurrentRequests: 10_000 },
  });
  parentPort!.postMessage({ url: `${gateway.url}/v1`, secret, limitedSecret } satisfies Ready);
  parentPort!.once("message", async () => {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

async function serveUpstream(): Promise<void> {
  const { url, server } = await startChatUpstream();
  parentPort!.postMessage({ url } satisfies Ready);
  parentPort!.once("message", () => server.close(() => process.exit(0)));
}

async function serveFloor(upstreamUrl: string): Promise<void> {
  const { url, server, pool } = await startFloorProxy(upstreamUrl);
  parentPort!.postMessage({ url } satisfies Ready);
  parentPort!.once("message", () => server.close(() => void pool.close().then(() => process.exit(0))));
}

async function startWorker(role: Role): Promise<Ready & { stop(): Promise<void> }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: role });
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

/** A chat request to a base URL ending in /v1. */
function chatTarget(baseUrl: string, headers: Record<string, string>, model: string, stream: boolean): Target {
  const url = new URL(baseUrl);
  return { origin: url.origin, path: `${url.pathname}/chat/completions`, headers, body: JSON.stringify({ model, ...PROMPT, ...(stream ? { stream: true } : {}) }) };
}

/** Whether a stream through `target` arrives whole: Portkey's is checked, not assumed. */
async function streamWorks(target: Target): Promise<string | undefined> {
  try {
    const response = await fetch(target.origin + target.path, { method: "POST", headers: { "content-type": "application/json", ...target.headers }, body: target.body });
    const text = await response.text();
    if (response.status !== 200) return `answered ${response.status}`;
    if (!text.includes("data: [DONE]")) return "the stream did not end with [DONE]";
    return undefined;
  } catch (error) {
    return String(error);
  }
}

export interface GatewayBenchRow {
  connections: number;
  whole: { bare: WholeCell; floor: WholeCell; gateway: WholeCell; portkey: WholeCell };
  streams: { bare: StreamCell; floor: StreamCell; gateway: StreamCell };
}

/** One round of the rate policy's cost: the same load on the key without and the key with a rate policy. */
export interface RateCostRound {
  plain: WholeCell;
  limited: WholeCell;
}

export async function benchGateway(
  seconds: number,
  levels: readonly number[],
  rateRounds = 3,
): Promise<{ rows: GatewayBenchRow[]; portkeyStreaming: string | undefined; rateCost: RateCostRound[] }> {
  const upstream = await startWorker({ role: "upstream" });
  const floor = await startWorker({ role: "floor", upstreamUrl: upstream.url });
  const gateway = await startWorker({ role: "gateway", upstreamUrl: upstream.url });
  const portkey = await startPortkey();
  const targets = (stream: boolean) => ({
    bare: chatTarget(upstream.url, {}, "bench-upstream", stream),
    floor: chatTarget(floor.url, {}, "bench-upstream", stream),
    gateway: chatTarget(gateway.url, { authorization: `Bearer ${gateway.secret}` }, MODEL, stream),
    portkey: chatTarget(`${portkey.origin}/v1`, portkey.headersFor(upstream.url), "bench-upstream", stream),
  });
  const whole = targets(false);
  const streamed = targets(true);
  const rows: GatewayBenchRow[] = [];
  try {
    const portkeyStreaming = await streamWorks(streamed.portkey);
    // Warm every path (JIT, connection pools, SQLite's page cache) before anything is measured.
    for (const target of Object.values(whole)) await loadWhole(target, 4, 1);
    for (const target of [streamed.bare, streamed.floor, streamed.gateway]) await loadStreams(target, 4, 1);
    for (const connections of levels) {
      rows.push({
        connections,
        whole: {
          bare: await loadWhole(whole.bare, connections, seconds),
          floor: await loadWhole(whole.floor, connections, seconds),
          gateway: await loadWhole(whole.gateway, connections, seconds),
          portkey: await loadWhole(whole.portkey, connections, seconds),
        },
        streams: {
          bare: await loadStreams(streamed.bare, connections, seconds),
          floor: await loadStreams(streamed.floor, connections, seconds),
          gateway: await loadStreams(streamed.gateway, connections, seconds),
        },
      });
    }
    const limited = chatTarget(gateway.url, { authorization: `Bearer ${gateway.limitedSecret}` }, MODEL, false);
    await loadWhole(limited, 4, 1);
    const rateCost: RateCostRound[] = [];
    for (let round = 0; round < rateRounds; round++) {
      rateCost.push({ plain: await loadWhole(whole.gateway, 16, seconds), limited: await loadWhole(limited, 16, seconds) });
    }
    return { rows, portkeyStreaming, rateCost };
  } finally {
    await portkey.stop();
    await gateway.stop();
    await floor.stop();
    await upstream.stop();
  }
}

const ms = (value: number) => value.toFixed(3);
const pair = (p50: number, p99: number) => `${ms(p50)} / ${ms(p99)}`;

export async function main(): Promise<GatewayBenchRow[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const { rows, portkeyStreaming, rateCost } = await benchGateway(seconds, [1, 16]);
  printTable(
    `gateway: whole Chat Completions, client → path → the same upstream (loopback, ${seconds} s per cell; latencies in ms, p50 / p99)`,
    rows.flatMap(({ connections, whole }) =>
      (["bare", "floor", "gateway", "portkey"] as const).map((path) => ({
        connections,
        path,
        "req/s": Math.round(whole[path].requestsPerSecond),
        "vs bare": (whole[path].requestsPerSecond / whole.bare.requestsPerSecond).toFixed(2),
        "vs floor": (whole[path].requestsPerSecond / whole.floor.requestsPerSecond).toFixed(2),
        latency: pair(whole[path].p50, whole[path].p99),
        added: path === "bare" ? "" : pair(whole[path].p50 - whole.bare.p50, whole[path].p99 - whole.bare.p99),
        errors: whole[path].errors,
      })),
    ),
  );
  printTable(
    `gateway: streamed Chat Completions (${seconds} s per cell; time to first and last byte in ms, p50 / p99)`,
    rows.flatMap(({ connections, streams }) =>
      (["bare", "floor", "gateway"] as const).map((path) => ({
        connections,
        path,
        "streams/s": Math.round(streams[path].requestsPerSecond),
        "vs bare": (streams[path].requestsPerSecond / streams.bare.requestsPerSecond).toFixed(2),
        "vs floor": (streams[path].requestsPerSecond / streams.floor.requestsPerSecond).toFixed(2),
        "first byte": pair(streams[path].ttfbP50, streams[path].ttfbP99),
        "added first": path === "bare" ? "" : pair(streams[path].ttfbP50 - streams.bare.ttfbP50, streams[path].ttfbP99 - streams.bare.ttfbP99),
        "last byte": pair(streams[path].ttlbP50, streams[path].ttlbP99),
        "added last": path === "bare" ? "" : pair(streams[path].ttlbP50 - streams.bare.ttlbP50, streams[path].ttlbP99 - streams.bare.ttlbP99),
        errors: streams[path].errors,
      })),
    ),
  );
  console.log(`portkey streaming: ${portkeyStreaming === undefined ? "works (not measured)" : `not measured: ${portkeyStreaming}`}`);

  printTable(
    `gateway: a key's rate limit policy (every limit set, none reached) against none, whole answers at 16 connections, alternated (${seconds} s per cell)`,
    rateCost.map(({ plain, limited }, round) => ({
      round: round + 1,
      "no policy req/s": Math.round(plain.requestsPerSecond),
      "rate policy req/s": Math.round(limited.requestsPerSecond),
      ratio: (limited.requestsPerSecond / plain.requestsPerSecond).toFixed(3),
      "p50 no policy / policy": `${ms(plain.p50)} / ${ms(limited.p50)}`,
      errors: plain.errors + limited.errors,
    })),
  );
  const sum = (cells: WholeCell[]) => cells.reduce((total, cell) => total + cell.requestsPerSecond, 0);
  const rateCostShare = 1 - sum(rateCost.map((round) => round.limited)) / sum(rateCost.map((round) => round.plain));

  const memory = [await measureOpenStreams(1000), await measureOpenStreams(2000)];
  printTable(
    "gateway: resident memory of a gateway process holding open streams (relayed, first event sent)",
    memory.map((cell) => ({ streams: cell.streams, "baseline MiB": (cell.baselineKiB / 1024).toFixed(1), "open MiB": (cell.openKiB / 1024).toFixed(1), "KiB per stream": cell.perStreamKiB.toFixed(1) })),
  );
  const marginal = (memory[1]!.openKiB - memory[0]!.openKiB) / (memory[1]!.streams - memory[0]!.streams);
  console.log(`memory: ${marginal.toFixed(1)} KiB per stream between ${memory[0]!.streams} and ${memory[1]!.streams} open (the growth that scales with streams)`);

  const at = (connections: number) => rows.find((row) => row.connections === connections);
  const one = at(1);
  const sixteen = at(16);
  const verdict = (met: boolean) => (met ? "met" : "NOT met");
  if (one && sixteen) {
    const wholeRatio = sixteen.whole.gateway.requestsPerSecond / sixteen.whole.floor.requestsPerSecond;
    const streamRatio = sixteen.streams.gateway.requestsPerSecond / sixteen.streams.floor.requestsPerSecond;
    const addedP50 = one.whole.gateway.p50 - one.whole.bare.p50;
    const floorAddedP50 = one.whole.floor.p50 - one.whole.bare.p50;
    const aheadLatency = one.whole.gateway.p99 < one.whole.portkey.p99;
    const aheadThroughput = sixteen.whole.gateway.requestsPerSecond > sixteen.whole.portkey.requestsPerSecond;
    const perStream = memory[0]!.perStreamKiB;
    console.log(
      `targets: whole at 16 ${wholeRatio.toFixed(2)} of floor ≥ 0.8 ${verdict(wholeRatio >= 0.8)}; ` +
        `streamed at 16 ${streamRatio.toFixed(2)} of floor ≥ 0.8 ${verdict(streamRatio >= 0.8)}; ` +
        `added p50 at 1 ${ms(addedP50)} ms ≤ 2 × floor's ${ms(floorAddedP50)} ${verdict(addedP50 <= 2 * floorAddedP50)}; ` +
        `${perStream.toFixed(1)} KiB per stream at 1000 ≤ 64 ${verdict(perStream <= 64)}; ` +
        `ahead of Portkey on latency ${verdict(aheadLatency)}, on throughput ${verdict(aheadThroughput)}; ` +
        `rate limit policy costs ${(rateCostShare * 100).toFixed(1)}% of throughput < 5% ${verdict(rateCostShare < 0.05)}`,
    );
  }
  return rows;
}

if (!isMainThread) {
  const role = workerData as Role;
  if (role.role === "gateway") await serveGateway(role.upstreamUrl);
  else if (role.role === "floor") await serveFloor(role.upstreamUrl);
  else await serveUpstream();
} else if (import.meta.main) {
  await main();
}
