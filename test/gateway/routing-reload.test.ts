/**
 * Reloading `--config` without a restart (docs/operators/routing.md#reloading-the-config), on the
 * gateway as deployed: `gateway serve` processes, sent SIGHUP or watching their file. A route added
 * takes effect within a second while streams in flight finish intact on the route they started on
 * (read through the official openai client's parser); a broken file changes nothing and says why,
 * in the words the gateway uses at start; `/readyz` and the metrics show the version and the result.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { ROUTE_HEADER } from "@gateway-keys/contract";
import { startGatewayProcess, type GatewayProcess } from "@gateway-keys/testkit/gateway-process";
import { startScriptedProvider, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { startTestGateway } from "@gateway-keys/testkit/test-gateway";
import { call } from "./helpers";
import { chatAnswer } from "./forwarding-support";

const KEY_ENV = "GATEWAY_TEST_RELOAD_PROVIDER_KEY";
const env = { [KEY_ENV]: "sk-reload-provider-0123456789" };
const STREAM_PIECES = 10;

const chunk = (content: string, finish: string | null = null) => ({ id: "c", object: "chat.completion.chunk", created: 1, model: "up", choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

let east: ScriptedProvider;
let west: ScriptedProvider;
let dir: string;

beforeAll(async () => {
  [east, west] = await Promise.all([startScriptedProvider(), startScriptedProvider()]);
  dir = await mkdtemp(join(tmpdir(), "routing-reload-"));
});
afterAll(async () => {
  await Promise.all([east.close(), west.close()]);
  await rm(dir, { recursive: true, force: true });
});

/** A config of model `spread` over `routes` (each named by its provider). */
function configOf(routes: { provider: "east" | "west"; weight?: number }[]) {
  return {
    providers: {
      east: { kind: "openai", baseUrl: `${east.origin}/v1`, apiKeyEnv: KEY_ENV, timeoutMs: 5000, maxConnections: 256 },
      west: { kind: "openai", baseUrl: `${west.origin}/v1`, apiKeyEnv: KEY_ENV, timeoutMs: 5000, maxConnections: 256 },
    },
    models: [
      {
        id: "spread",
        family: "chat",
        routing: "weighted",
        routes: routes.map((route) => ({ ...route, model: `gpt-${route.provider}` })),
        pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" },
        maxOutputTokens: 50,
      },
    ],
  };
}

/** Both providers answer; east streams slowly (a piece every 150 ms), west at once. */
function answerBoth(): void {
  const streamed = (gapMs: number) => ({
    events: [...Array.from({ length: STREAM_PIECES }, (_, index) => ({ data: chunk(`p${index} `) })), { data: chunk("", "stop") }, { data: "[DONE]" }],
    gapMs,
  });
  const whole = { json: chatAnswer({ role: "assistant", content: "hi" }, "stop", { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }) };
  east.answer((request) => ((request.body as { stream?: boolean }).stream ? streamed(150) : whole));
  west.answer((request) => ((request.body as { stream?: boolean }).stream ? streamed(0) : whole));
}

async function startWith(configPath: string, args: string[] = []): Promise<{ gateway: GatewayProcess; secret: string }> {
  const gateway = await startGatewayProcess({ bootstrap: { ownerId: "reload-owner" }, args: ["--config", configPath, ...args], env });
  const created = await call(gateway.url, "POST", "/v1/account/api-keys", { bearer: gateway.provisioningKey, body: { name: "reload" }, idempotencyKey: "auto" });
  return { gateway, secret: created.body.secret };
}

const routeOf = async (gateway: GatewayProcess, secret: string) =>
  (await call(gateway.url, "POST", "/v1/chat/completions", { bearer: secret, body: { model: "spread", messages: [{ role: "user", content: "hi" }], max_tokens: 5 } })).headers.get(ROUTE_HEADER);

/** Polls until `route` answers, and returns how long that took (ms); fails past `withinMs`. */
async function msUntilRouted(gateway: GatewayProcess, secret: string, route: string, withinMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    if ((await routeOf(gateway, secret)) === route) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${route} did not answer within ${withinMs} ms`);
}

beforeEach(() => answerBoth());

test("SIGHUP adding a route takes effect within a second while 100 streams in flight finish intact on the route they started on", async () => {
  const configPath = join(dir, "sighup.json");
  await writeFile(configPath, JSON.stringify(configOf([{ provider: "east" }])));
  const { gateway, secret } = await startWith(configPath);
  try {
    const before = await call(gateway.url, "GET", "/readyz");
    expect(await routeOf(gateway, secret)).toBe("east/gpt-east");
    const openai = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const streams = Array.from({ length: 100 }, async () => {
      const stream = await openai.chat.completions.create({ model: "spread", messages: [{ role: "user", content: "hi" }], max_tokens: 50, stream: true });
      let text = "";
      for await (const piece of stream) text += piece.choices[0]?.delta.content ?? "";
      return text;
    });
    // The streams are under way (east holds each for a second and a half) when the config changes.
    while (east.received.filter((request) => (request.body as { stream?: boolean }).stream).length < 100) await new Promise((resolve) => setTimeout(resolve, 10));
    await writeFile(configPath, JSON.stringify(configOf([{ provider: "east", weight: 1 }, { provider: "west", weight: 1_000_000 }])));
    gateway.child.kill("SIGHUP");
    expect(await msUntilRouted(gateway, secret, "west/gpt-west", 1000)).toBeLessThan(1000);
    const texts = await Promise.all(streams);
    const whole = Array.from({ length: STREAM_PIECES }, (_, index) => `p${index} `).join("");
    expect(texts).toEqual(Array(100).fill(whole));
    // Every stream went to east, where it began; none was retried elsewhere.
    expect(west.received.filter((request) => (request.body as { stream?: boolean }).stream)).toEqual([]);

    const after = await call(gateway.url, "GET", "/readyz");
    expect(after.status).toBe(200);
    expect(after.body.config.version).not.toBe(before.body.config.version);
    expect(after.body.config.lastReload).toEqual({ at: expect.any(String), result: "applied", error: null });
    for (let tries = 0; !gateway.output().includes("SIGHUP: config reloaded") && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gateway.output()).toContain(`SIGHUP: config reloaded (version ${after.body.config.version})`);
  } finally {
    await gateway.stop();
  }
});

test("every process that got the signal serves the new route within a second", async () => {
  const configPath = join(dir, "many.json");
  await writeFile(configPath, JSON.stringify(configOf([{ provider: "east" }])));
  const processes = await Promise.all([startWith(configPath), startWith(configPath), startWith(configPath)]);
  try {
    for (const { gateway, secret } of processes) expect(await routeOf(gateway, secret)).toBe("east/gpt-east");
    await writeFile(configPath, JSON.stringify(configOf([{ provider: "west" }])));
    for (const { gateway } of processes) gateway.child.kill("SIGHUP");
    const took = await Promise.all(processes.map(({ gateway, secret }) => msUntilRouted(gateway, secret, "west/gpt-west", 1000)));
    expect(Math.max(...took)).toBeLessThan(1000);
    const versions = await Promise.all(processes.map(async ({ gateway }) => (await call(gateway.url, "GET", "/readyz")).body.config.version));
    expect(new Set(versions).size).toBe(1);
  } finally {
    await Promise.all(processes.map(({ gateway }) => gateway.stop()));
  }
});

test("a broken file sent by SIGHUP changes nothing and says why, as the gateway says it at start", async () => {
  const configPath = join(dir, "broken.json");
  await writeFile(configPath, JSON.stringify(configOf([{ provider: "west" }])));
  const { gateway, secret } = await startWith(configPath);
  try {
    const before = (await call(gateway.url, "GET", "/readyz")).body.config;
    const broken = configOf([{ provider: "west", weight: -1 }]);
    await writeFile(configPath, JSON.stringify(broken));
    gateway.child.kill("SIGHUP");
    let status = (await call(gateway.url, "GET", "/readyz")).body;
    for (let tries = 0; status.config.lastReload === null && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await call(gateway.url, "GET", "/readyz")).body;
    }
    expect(status.status).toBe("ok");
    expect(status.config.version).toBe(before.version);
    expect(status.config.lastReload.result).toBe("refused");
    expect(status.config.lastReload.error).toContain("models[0].routes[0].weight: expected a positive number");
    expect(await routeOf(gateway, secret)).toBe("west/gpt-west");

    // The same file at start: the same message, and no gateway.
    const refusedAtStart = startGatewayProcess({ args: ["--config", configPath], env });
    await expect(refusedAtStart).rejects.toThrow(status.config.lastReload.error);
    expect(gateway.output()).toContain(`SIGHUP: config refused, still serving version ${before.version}: ${status.config.lastReload.error}`);
  } finally {
    await gateway.stop();
  }
});

test("--watch-config applies a changed file within a second, without a signal", async () => {
  const configPath = join(dir, "watched.json");
  await writeFile(configPath, JSON.stringify(configOf([{ provider: "east" }])));
  const { gateway, secret } = await startWith(configPath, ["--watch-config"]);
  try {
    expect(await routeOf(gateway, secret)).toBe("east/gpt-east");
    await writeFile(configPath, JSON.stringify(configOf([{ provider: "west" }])));
    expect(await msUntilRouted(gateway, secret, "west/gpt-west", 1500)).toBeLessThan(1500);
  } finally {
    await gateway.stop();
  }
});

test("the metrics carry the config's version and count reloads applied and refused; /readyz agrees", async () => {
  const configPath = join(dir, "metrics.json");
  await writeFile(configPath, JSON.stringify(configOf([{ provider: "east" }])));
  process.env[KEY_ENV] = env[KEY_ENV];
  const gateway = await startTestGateway({ storage: "memory", configPath });
  try {
    const metrics = () => gateway.gateway.app.gateway.metrics.registry.metrics();
    const first = (await call(gateway.baseUrl, "GET", "/readyz")).body.config.version;
    expect(await metrics()).toContain(`gateway_config_info{version="${first}"} 1`);
    await writeFile(configPath, JSON.stringify(configOf([{ provider: "east" }, { provider: "west" }])));
    const applied = await gateway.gateway.reloadConfig!();
    await writeFile(configPath, "models: [");
    const refused = await gateway.gateway.reloadConfig!();
    expect(refused.version).toBe(applied.version);
    expect(refused.lastReload).toEqual({ at: expect.any(String), result: "refused", error: expect.stringContaining(`cannot read the config file ${configPath}`) });
    const text = await metrics();
    expect(text).toContain(`gateway_config_info{version="${applied.version}"} 1`);
    expect(text).not.toContain(`gateway_config_info{version="${first}"}`);
    expect(text).toContain('gateway_config_reloads_total{result="applied"} 1');
    expect(text).toContain('gateway_config_reloads_total{result="refused"} 1');
    expect((await call(gateway.baseUrl, "GET", "/readyz")).body.config).toEqual(refused);
  } finally {
    await gateway.stop();
    delete process.env[KEY_ENV];
  }
});
