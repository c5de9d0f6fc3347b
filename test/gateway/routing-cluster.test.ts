/**
 * Routing across three gateway processes (`gateway serve`) on one PostgreSQL database, against
 * scripted deployments — the scenario of docs/operators/routing.md#what-a-cluster-does, in four
 * phases over one config:
 * - `weighted` 5/3/2 over three healthy deployments: the split follows the weights;
 * - `lowest-latency` with one slow deployment: most traffic goes elsewhere;
 * - a deployment with a small tokensPerMinute (which, like a cloud, answers 429 past it): never
 *   pushed past it, and no client sees a 429 while another deployment has room;
 * - a deployment that fails midway: cooled after its threshold, then sent only probes until it
 *   recovers, then given its traffic back.
 * ROUTING_SCENARIO_REQUESTS sets the total (default 6,000, which keeps the file under a minute; the docs' table is of 10,000); the table printed is the docs'.
 */
import type { ServerResponse } from "node:http";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { ROUTE_HEADER } from "@gateway-keys/contract";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { startPostgres, type PostgresServer } from "@gateway-keys/testkit/postgres";
import { startScriptedProvider, type ReceivedRequest, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { call, type WireResponse } from "./helpers";
import { describeWith } from "../support/needs";
import { chatAnswer } from "./forwarding-support";

const TOTAL = Number(process.env.ROUTING_SCENARIO_REQUESTS ?? 6_000);
const KEY_ENV = "GATEWAY_TEST_CLUSTER_PROVIDER_KEY";
const USAGE = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
const ANSWER = JSON.stringify(chatAnswer({ role: "assistant", content: "hi" }, "stop", USAGE));
/** The small deployment's quota, which it enforces itself as the gateway counts it: a minute's worth, draining continuously. */
const SMALL_TPM = 600;
const COOLDOWN_SECONDS = 1;
const PER_PROCESS_IN_FLIGHT = 6;

const NAMES = ["alpha", "beta", "gamma", "small", "flaky", "slow", "down", "limited"] as const;
type Name = (typeof NAMES)[number];

/** What a deployment saw: when each request came (ms) and how it answered. */
interface Seen {
  at: number;
  status: number;
}

describeWith("postgres")("routing across three gateway processes on one PostgreSQL database", () => {
  let server: PostgresServer;
  let dir: string;
  let gateways: GatewayProcess[] = [];
  let secret: string;
  const providers = {} as Record<Name, ScriptedProvider>;
  const seen = Object.fromEntries(NAMES.map((name) => [name, [] as Seen[]])) as Record<Name, Seen[]>;
  let flakyFailing = false;
  const smallBucket = { level: 0, at: 0 };

  const answer = (name: Name, response: ServerResponse, status: number, delayMs = 0) => {
    seen[name].push({ at: performance.now(), status });
    const send = () => response.writeHead(status, { "content-type": "application/json" }).end(status === 200 ? ANSWER : JSON.stringify({ error: { message: `status ${status}` } }));
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
  };

  beforeAll(async () => {
    server = await startPostgres();
    const databaseUrl = await server.createDatabase();
    for (const name of NAMES) providers[name] = await startScriptedProvider();
    for (const name of ["alpha", "beta", "gamma", "limited"] as const) providers[name].answer(() => ({ handle: (_request, response) => answer(name, response, 200) }));
    providers.down.answer(() => ({ handle: (_request, response) => answer("down", response, 503) }));
    providers.slow.answer(() => ({ handle: (_request, response) => answer("slow", response, 200, 60) }));
    providers.flaky.answer(() => ({ handle: (_request, response) => answer("flaky", response, flakyFailing ? 500 : 200) }));
    providers.small.answer(() => ({
      handle: (_request: ReceivedRequest, response) => {
        // The deployment's own quota on the tokens it serves: past it, the cloud's 429.
        const now = performance.now();
        const level = Math.max(0, smallBucket.level - ((now - smallBucket.at) * SMALL_TPM) / 60_000);
        const fits = level + USAGE.total_tokens <= SMALL_TPM;
        Object.assign(smallBucket, { level: fits ? level + USAGE.total_tokens : level, at: now });
        answer("small", response, fits ? 200 : 429);
      },
    }));
    const route = (name: Name, extra: object = {}) => ({ provider: name, model: `${name}-up`, ...extra });
    const model = (id: string, routing: string, routes: object[]) => ({
      id,
      family: "chat",
      routing,
      routes,
      pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" },
      maxOutputTokens: 10,
    });
    const config = {
      providers: Object.fromEntries(NAMES.map((name) => [name, { kind: "openai", baseUrl: `${providers[name].origin}/v1`, apiKeyEnv: KEY_ENV, timeoutMs: 5000 }])),
      models: [
        model("weighted", "weighted", [route("alpha", { weight: 5 }), route("beta", { weight: 3 }), route("gamma", { weight: 2 })]),
        model("latency", "lowest-latency", [route("alpha"), route("beta"), route("slow")]),
        model("quota", "weighted", [route("small", { weight: 8, tokensPerMinute: SMALL_TPM }), route("beta", { weight: 1 }), route("gamma", { weight: 1 })]),
        model("failover", "ordered", [route("flaky"), route("alpha")]),
        model("shared-cooldown", "ordered", [route("down"), route("beta")]),
        model("shared-quota", "weighted", [route("limited", { weight: 100, requestsPerMinute: 10 }), route("gamma")]),
      ],
      cooldown: { failures: 3, windowSeconds: 10, seconds: COOLDOWN_SECONDS },
    };
    dir = await mkdtemp(join(tmpdir(), "routing-cluster-"));
    const configPath = join(dir, "gateway.json");
    await writeFile(configPath, JSON.stringify(config));
    const env = { [KEY_ENV]: "sk-cluster-provider-0123456789", GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64") };
    const start = (bootstrap: boolean) =>
      startGatewayProcess({ databaseUrl, ...(bootstrap ? { bootstrap: { ownerId: "routing-owner" } } : {}), args: ["--config", configPath], env });
    gateways = [await start(true)];
    gateways.push(...(await Promise.all([start(false), start(false)])));
    const created = await call(gateways[0]!.url, "POST", "/v1/account/api-keys", { bearer: gateways[0]!.provisioningKey, body: { name: "routing" }, idempotencyKey: "auto" });
    secret = created.body.secret;
  }, 60_000);

  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await Promise.all(Object.values(providers).map((provider) => provider.close()));
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** `count` chats to `model`, spread over the three processes, {@link PER_PROCESS_IN_FLIGHT} at a time on each; `onSent` hears each one's index. */
  /**
   * Sends `count` requests over the three processes, `PER_PROCESS_IN_FLIGHT` at a time each, and
   * more until `longEnough` says so: a phase whose checks need time to pass, whatever the machine's speed.
   */
  async function run(model: string, count: number, onSent: (index: number) => void = () => undefined, longEnough: () => boolean = () => true): Promise<WireResponse[]> {
    const responses: WireResponse[] = [];
    let next = 0;
    const workers = gateways.flatMap((gateway) =>
      Array.from({ length: PER_PROCESS_IN_FLIGHT }, async () => {
        while (next < count || !longEnough()) {
          onSent(next++);
          responses.push(await call(gateway.url, "POST", "/v1/chat/completions", { bearer: secret, body: { model, messages: [{ role: "user", content: "hi" }], max_tokens: 5 } }));
        }
      }),
    );
    await Promise.all(workers);
    return responses;
  }

  const routesOf = (responses: readonly WireResponse[]) => {
    const counts: Record<string, number> = {};
    for (const response of responses) counts[response.headers.get(ROUTE_HEADER) ?? `status ${response.status}`] = (counts[response.headers.get(ROUTE_HEADER) ?? `status ${response.status}`] ?? 0) + 1;
    return counts;
  };
  const table: string[] = ["| phase | route | requests | share | expected |", "|---|---|---:|---:|---|"];
  const note = (phase: string, route: string, requests: number, of: number, expected: string) =>
    table.push(`| ${phase} | ${route} | ${requests} | ${((100 * requests) / of).toFixed(1)}% | ${expected} |`);
  afterAll(() => process.stdout.write(`\nrouting scenario, ${TOTAL} requests over 3 processes:\n${table.join("\n")}\n`));

  test("weighted 5/3/2 splits the traffic of three processes within 5 points of each weight's share", async () => {
    const count = Math.round(TOTAL * 0.4);
    const responses = await run("weighted", count);
    expect(responses.filter((response) => response.status !== 200)).toEqual([]);
    const counts = routesOf(responses);
    for (const [name, share] of [["alpha", 0.5], ["beta", 0.3], ["gamma", 0.2]] as const) {
      const requests = counts[`${name}/${name}-up`] ?? 0;
      note("weighted", name, requests, count, `${share * 100}% ± 5`);
      expect(Math.abs(requests / count - share)).toBeLessThan(0.05);
    }
  }, 120_000);

  test("lowest-latency sends at least 80% of the traffic away from the slow deployment", async () => {
    const count = Math.round(TOTAL * 0.2);
    const responses = await run("latency", count);
    expect(responses.filter((response) => response.status !== 200)).toEqual([]);
    const slow = routesOf(responses)["slow/slow-up"] ?? 0;
    note("lowest-latency", "slow (60 ms)", slow, count, "≤ 20%");
    note("lowest-latency", "alpha + beta", count - slow, count, "≥ 80%");
    expect(slow / count).toBeLessThanOrEqual(0.2);
  }, 120_000);

  test("the small deployment is never pushed past its tokensPerMinute, and no client sees a 429 while the others have room", async () => {
    const count = Math.round(TOTAL * 0.2);
    const responses = await run("quota", count);
    expect(responses.filter((response) => response.status !== 200)).toEqual([]);
    expect(seen.small.filter((request) => request.status === 429)).toEqual([]);
    const small = routesOf(responses)["small/small-up"] ?? 0;
    note("quota", "small (tokensPerMinute 600, weight 8 of 10)", small, count, "never past its quota");
    // Weighted 8 of 10 without its quota, it would have had about 80%: the quota turned the rest away.
    expect(small).toBeGreaterThan(0);
    expect(small / count).toBeLessThan(0.6);
  }, 120_000);

  test("a cooldown one process began is honoured by the others, and a quota is counted once across the three", async () => {
    const chat = (gateway: GatewayProcess, model: string) =>
      call(gateway.url, "POST", "/v1/chat/completions", { bearer: secret, body: { model, messages: [{ role: "user", content: "hi" }], max_tokens: 5 } });
    const [a, b, c] = gateways as [GatewayProcess, GatewayProcess, GatewayProcess];
    for (let request = 0; request < 3; request++) expect((await chat(a, "shared-cooldown")).status).toBe(200);
    expect(seen.down.length).toBe(3);
    // B and C never sent it anything, yet skip it once their view has caught up (every 250 ms).
    await new Promise((resolve) => setTimeout(resolve, 400));
    for (let request = 0; request < 20; request++) for (const other of [b, c]) expect((await chat(other, "shared-cooldown")).headers.get(ROUTE_HEADER)).toBe("beta/beta-up");
    expect(seen.down.length).toBe(3);

    // limited takes 100 of every 101 requests by weight, but 10 a minute across the three processes.
    const before = seen.limited.length;
    const spread = await Promise.all(Array.from({ length: 45 }, (_, index) => chat(gateways[index % 3]!, "shared-quota")));
    expect(spread.filter((response) => response.status !== 200)).toEqual([]);
    expect(seen.limited.length - before).toBe(10);
  }, 60_000);

  test("a deployment failing midway is cooled after its threshold, sent only probes until it recovers, then given its traffic back", async () => {
    const count = Math.round(TOTAL * 0.2);
    let failedFrom = 0;
    let recoveredAt = 0;
    /** Time after the recovery for the cooldown to lapse, the probe to answer, and traffic to come back. */
    const trafficBackMs = 1000 * COOLDOWN_SECONDS + 1500;
    const responses = await run(
      "failover",
      count,
      (index) => {
        if (index === Math.round(count * 0.25)) {
          flakyFailing = true;
          failedFrom = performance.now();
        }
        if (index === Math.round(count * 0.5)) {
          flakyFailing = false;
          recoveredAt = performance.now();
        }
      },
      () => recoveredAt > 0 && performance.now() > recoveredAt + trafficBackMs,
    );
    // Every client got an answer: a failure on flaky fell back to alpha.
    expect(responses.filter((response) => response.status !== 200)).toEqual([]);
    const failures = seen.flaky.filter((request) => request.status === 500);
    const outageSeconds = (recoveredAt - failedFrom) / 1000;
    // Past the first half second (the threshold, and each process's view catching up), only probes: one per cooldown, across the three processes.
    const settled = failures.filter((request) => request.at > failedFrom + 500);
    expect(settled.length).toBeLessThanOrEqual(Math.ceil(outageSeconds / COOLDOWN_SECONDS) + 1);
    // The threshold (3) and what each process had in flight before it saw the cooldown.
    expect(failures.length - settled.length).toBeLessThanOrEqual(3 + 3 * PER_PROCESS_IN_FLIGHT);
    const afterRecovery = seen.flaky.filter((request) => request.at > recoveredAt + 1000 * COOLDOWN_SECONDS + 500 && request.status === 200);
    expect(afterRecovery.length).toBeGreaterThan(0);
    const flaky = routesOf(responses)["flaky/flaky-up"] ?? 0;
    note("failover", `flaky (down ${outageSeconds.toFixed(1)} s)`, flaky, responses.length, `cooled: ${failures.length} failed attempts, ${settled.length} after the first 0.5 s`);
    note("failover", "alpha", responses.length - flaky, responses.length, "takes the traffic while flaky cools");
  }, 120_000);
});
