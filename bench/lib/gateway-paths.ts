/**
 * The servers of the gateway benchmark, each in its own worker thread (this file is the workers'
 * entry): the upstream (bench/lib/chat-upstream.ts), the floor proxy (bench/lib/floor-proxy.ts) and
 * our gateway, configured as deployed: an `openai` provider, a key with every policy on and a log
 * row storing request and response on a SQLite file. Also the one chat request every path is asked.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import type { ApiKeyWithSecret } from "@gateway-keys/contract";
import { startChatUpstream } from "./chat-upstream.ts";
import { startFloorProxy } from "./floor-proxy.ts";
import type { Target } from "./load.ts";
import { ownThreadStatPath } from "./process-cpu.ts";

/** The gateway's model id; the upstream's own is `bench-upstream`. */
export const MODEL = "bench-chat";
export const UPSTREAM_MODEL = "bench-upstream";
const UPSTREAM_KEY_ENV = "BENCH_UPSTREAM_KEY";
const PROMPT = { messages: [{ role: "user", content: "Say something about a fox and a dog." }], max_tokens: 64 };

/**
 * How `bench-chat` spreads over its routes (bench/routing.ts): `routes` providers, each the same
 * upstream under its own name, ordered by `strategy`; with `quota`, each route declares a quota
 * never reached (so its counting is measured, not its refusals).
 */
export interface BenchRouting {
  strategy: "ordered" | "weighted" | "least-busy" | "lowest-latency";
  routes: number;
  quota?: boolean;
}

/** The gateway's configuration as written in a config file: `bench-chat` forwarded to the upstream at `upstreamUrl` (an OpenAI-wire base URL). */
export function benchGatewayConfigFile(upstreamUrl: string, routing: BenchRouting = { strategy: "ordered", routes: 1 }): object {
  const names = Array.from({ length: routing.routes }, (_, index) => (index === 0 ? "upstream" : `upstream-${index}`));
  const quota = routing.quota ? { requestsPerMinute: 1_000_000_000, tokensPerMinute: 1_000_000_000_000 } : {};
  return {
    providers: Object.fromEntries(names.map((name) => [name, { kind: "openai", baseUrl: upstreamUrl, apiKeyEnv: UPSTREAM_KEY_ENV }])),
    models: [
      {
        id: MODEL,
        family: "chat",
        // Only when asked: another checkout's build (bench/builds.ts) may predate the field.
        ...(routing.strategy !== "ordered" && { routing: routing.strategy }),
        routes: names.map((provider) => ({ provider, model: UPSTREAM_MODEL, ...quota })),
        pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "2" },
        maxOutputTokens: 256,
      },
    ],
  };
}

/** The environment variable (and a value) the configured provider reads its key from. */
export const BENCH_UPSTREAM_ENV = { [UPSTREAM_KEY_ENV]: "upstream-key-unused" };

/** The bench keys' policies: a spend limit, logging of request and response, a model allow-list. */
const KEY_POLICIES = {
  spendPolicy: { limitUnits: "1000000000" },
  loggingPolicy: { storeRequest: true, storeResponse: true, retentionDays: 30 },
  modelPolicy: { mode: "allowList", modelIds: [MODEL] },
};

/** A rate limit policy with every limit set and none ever reached: what the rate policy's cost is measured with. */
export const UNREACHED_RATE_POLICY = { rateLimitPolicy: { requestsPerMinute: 1_000_000, tokensPerMinute: 10_000_000_000, maxConcurrentRequests: 10_000 } };

/** Creates a bench key (every policy in {@link KEY_POLICIES}, plus `extra`) on the gateway at `gatewayUrl` and returns its secret. */
export async function createBenchKey(gatewayUrl: string, provisioningKey: string, name: string, extra: object = {}): Promise<string> {
  const created = await fetch(`${gatewayUrl}/v1/account/api-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${provisioningKey}`, "content-type": "application/json", "idempotency-key": `bench-${name}` },
    body: JSON.stringify({ name, ...KEY_POLICIES, ...extra }),
  });
  if (created.status !== 201) throw new Error(`creating the bench key ${name} answered ${created.status}`);
  return ((await created.json()) as ApiKeyWithSecret).secret;
}

/** A chat request to a base URL ending in /v1. */
export function chatTarget(baseUrl: string, headers: Record<string, string>, model: string, stream: boolean): Target {
  const url = new URL(baseUrl);
  return { origin: url.origin, path: `${url.pathname}/chat/completions`, headers, body: JSON.stringify({ model, ...PROMPT, ...(stream ? { stream: true } : {}) }) };
}

/**
 * A worker's job. A gateway may run without tracking which secret each request used
 * (bench/secret-use.ts measures that cost), and may export spans to `otelEndpoint` (bench/tracing.ts),
 * with `env` as its own environment's additions (a worker thread has a copy of its own: the sampler
 * variables of one gateway do not reach another).
 */
type Role =
  | { role: "upstream" }
  | { role: "trace-sink" }
  | { role: "floor"; upstreamUrl: string }
  | { role: "gateway" } & GatewayRole;

/**
 * A bench gateway's settings: whether it tracks secret use, where it exports spans, its
 * environment's additions, another checkout's build (`repoRoot`), how `bench-chat` is routed,
 * which team, if any, the `bench` key is in ({@link BENCH_TEAMS}), and policies the `bench` key
 * holds beyond {@link KEY_POLICIES} (`keyPolicies`).
 */
interface GatewayRole {
  upstreamUrl: string;
  trackSecretUse?: boolean;
  otelEndpoint?: string;
  env?: Record<string, string>;
  repoRoot?: string;
  routing?: BenchRouting;
  team?: BenchTeam;
  keyPolicies?: object;
}

/** What a worker reports once it listens. */
export interface Ready {
  /** Base URL of its OpenAI-wire API (ending in /v1). */
  url: string;
  /** The regular key's secret, for the gateway. */
  secret?: string;
  /** A key like `secret`'s, plus {@link UNREACHED_RATE_POLICY}. */
  limitedSecret?: string;
  /** The gateway's provisioning key, to read the keys back. */
  provisioningKey?: string;
  /** The `stat` file of the gateway's worker thread, for its CPU time (bench/lib/process-cpu.ts). */
  threadStat?: string;
}

/**
 * The teams a bench key is measured in (bench/teams.ts), each with its limits never reached: `full`
 * has every team limit set (a spend policy of two windows, a rate limit, a model ceiling); `spend`
 * only a spend policy of one window, the least a team that caps anything asks of a request.
 */
export const BENCH_TEAMS = {
  full: {
    name: "bench team",
    spendPolicy: { windows: [{ limitUnits: "1000000000", resetPeriod: "daily" }, { limitUnits: "1000000000", resetPeriod: "monthly" }] },
    rateLimitPolicy: UNREACHED_RATE_POLICY.rateLimitPolicy,
    modelPolicy: { mode: "allowList", modelIds: [MODEL] },
  },
  spend: {
    name: "bench spend team",
    spendPolicy: { limitUnits: "1000000000", resetPeriod: "monthly" },
  },
} as const;
export type BenchTeam = keyof typeof BENCH_TEAMS;

/** The `full` bench team's limits held by a key of its own (its spend windows and rate limit; the key's model policy is as narrow already). */
export const FULL_TEAM_LIMITS_ON_A_KEY = { spendPolicy: BENCH_TEAMS.full.spendPolicy, rateLimitPolicy: BENCH_TEAMS.full.rateLimitPolicy };

/** Creates the bench team `team` ({@link BENCH_TEAMS}) on a gateway; its id. */
export async function createBenchTeam(gatewayUrl: string, provisioningKey: string, team: BenchTeam = "full"): Promise<string> {
  const created = await fetch(`${gatewayUrl}/v1/account/teams`, {
    method: "POST",
    headers: { authorization: `Bearer ${provisioningKey}`, "content-type": "application/json", "idempotency-key": `bench-team-${team}` },
    body: JSON.stringify(BENCH_TEAMS[team]),
  });
  if (created.status !== 201) throw new Error(`creating the bench team ${team} answered ${created.status}`);
  return ((await created.json()) as { teamId: string }).teamId;
}

/**
 * Worker side: the gateway on a fresh SQLite file, forwarding `bench-chat` to the upstream, with the
 * two bench keys; with `team`, the `bench` key is in that bench team ({@link BENCH_TEAMS}).
 */
async function serveGateway({ upstreamUrl, trackSecretUse = true, otelEndpoint, repoRoot, routing, team: benchTeam, keyPolicies }: GatewayRole): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gateway-bench-"));
  Object.assign(process.env, BENCH_UPSTREAM_ENV);
  // Another checkout's build (bench/builds.ts compares two), else this one's.
  const { GatewayConfig, startGateway } = (repoRoot ? await import(join(repoRoot, "gateway/dist/index.js")) : await import("@gateway-keys/gateway")) as typeof import("@gateway-keys/gateway");
  const gateway = await startGateway({
    dbPath: join(dir, "bench.db"),
    config: GatewayConfig.parse(benchGatewayConfigFile(upstreamUrl, routing)),
    bootstrap: { ownerId: "bench" },
    // The default (200 req/s per key) would measure the rate limiter, not the gateway.
    rateLimit: { ratePerSecond: 1e9, burst: 1e9 },
    secretUse: { track: trackSecretUse },
    ...(otelEndpoint ? { otel: { endpoint: otelEndpoint } } : {}),
  });
  const team = benchTeam ? { teamId: await createBenchTeam(gateway.url, gateway.provisioningKey!, benchTeam) } : {};
  const secret = await createBenchKey(gateway.url, gateway.provisioningKey!, "bench", { ...team, ...keyPolicies });
  const limitedSecret = await createBenchKey(gateway.url, gateway.provisioningKey!, "bench-limited", UNREACHED_RATE_POLICY);
  parentPort!.postMessage({ url: `${gateway.url}/v1`, secret, limitedSecret, provisioningKey: gateway.provisioningKey!, threadStat: ownThreadStatPath() } satisfies Ready);
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

/** An OTLP/HTTP receiver that takes every export and keeps nothing: what a gateway's tracing costs without a collector's own. */
async function serveTraceSink(): Promise<void> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  parentPort!.postMessage({ url: `http://127.0.0.1:${port}` } satisfies Ready);
  parentPort!.once("message", () => server.close(() => process.exit(0)));
}

async function serveFloor(upstreamUrl: string): Promise<void> {
  const { url, server, pool } = await startFloorProxy(upstreamUrl);
  parentPort!.postMessage({ url } satisfies Ready);
  parentPort!.once("message", () => server.close(() => void pool.close().then(() => process.exit(0))));
}

/** Starts one server in its own worker thread; resolves once it listens. */
export async function startWorker(role: Role): Promise<Ready & { stop(): Promise<void> }> {
  const env = role.role === "gateway" && role.env ? { ...process.env, ...role.env } : undefined;
  const worker = new Worker(new URL(import.meta.url), { workerData: role, ...(env ? { env } : {}) });
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

if (!isMainThread && (workerData as Role | undefined)?.role !== undefined) {
  const role = workerData as Role;
  if (role.role === "gateway") await serveGateway(role);
  else if (role.role === "trace-sink") await serveTraceSink();
  else if (role.role === "floor") await serveFloor(role.upstreamUrl);
  else await serveUpstream();
}
