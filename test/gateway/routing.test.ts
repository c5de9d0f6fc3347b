/**
 * Routing over several deployments of one model (docs/operators/routing.md), over real HTTP: a
 * gateway in front of three scripted OpenAI-wire providers, each a deployment. What crossed the
 * boundary is counted at the providers (which one each request reached) and read back from the
 * client's side (`x-gateway-route`, status, `Retry-After`) and the request log.
 */
import { GatewayConfig } from "@gateway-keys/gateway";
import { ROUTE_HEADER } from "@gateway-keys/contract";
import { startScriptedProvider, type Script, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call, type WireResponse } from "./helpers";
import { chatAnswer } from "./forwarding-support";

const KEY_ENV = "GATEWAY_TEST_ROUTING_PROVIDER_KEY";
const NAMES = ["east", "west", "north"] as const;
type Name = (typeof NAMES)[number];

const answered: Script = { json: chatAnswer({ role: "assistant", content: "hi" }, "stop", { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }) };

let providers: Record<Name, ScriptedProvider>;

beforeAll(async () => {
  process.env[KEY_ENV] = "sk-routing-provider-0123456789";
  const started = await Promise.all(NAMES.map(() => startScriptedProvider()));
  providers = Object.fromEntries(NAMES.map((name, index) => [name, started[index]!])) as Record<Name, ScriptedProvider>;
});
afterAll(async () => {
  await Promise.all(Object.values(providers).map((provider) => provider.close()));
  delete process.env[KEY_ENV];
});
beforeEach(() => {
  for (const provider of Object.values(providers)) {
    provider.received.splice(0);
    provider.answer(() => answered);
  }
});

/** A gateway whose model `spread` routes to the three providers as `routes` says (each `{ provider, … }`). */
async function gatewayWith(model: { routing?: string; routes: object[] }, cooldown?: object | false): Promise<{ gateway: TestGateway; secret: string }> {
  const config = GatewayConfig.parse({
    providers: Object.fromEntries(NAMES.map((name) => [name, { kind: "openai", baseUrl: `${providers[name].origin}/v1`, apiKeyEnv: KEY_ENV, timeoutMs: 2000 }])),
    models: [{ id: "spread", family: "chat", pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" }, maxOutputTokens: 10, ...model }],
    ...(cooldown !== undefined && { cooldown }),
  });
  const gateway = await startTestGateway({ storage: "memory", config });
  const { secret } = await gateway.createRegularKey({ name: "routing", loggingPolicy: { storeRequest: false, storeResponse: false, retentionDays: 1 } });
  return { gateway, secret };
}

const chat = (gateway: TestGateway, secret: string) =>
  call(gateway.baseUrl, "POST", "/v1/chat/completions", { bearer: secret, body: { model: "spread", messages: [{ role: "user", content: "hi" }], max_tokens: 5 } });

/** `count` requests, `parallel` at a time. */
async function chats(gateway: TestGateway, secret: string, count: number, parallel = 16): Promise<WireResponse[]> {
  const responses: WireResponse[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next++;
        responses.push(await chat(gateway, secret));
      }
    }),
  );
  return responses;
}

const received = (name: Name) => providers[name].received.length;

/** How many answers named each route in x-gateway-route. */
function byRouteHeader(responses: readonly WireResponse[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const response of responses) {
    const route = response.headers.get(ROUTE_HEADER) ?? "none";
    counts[route] = (counts[route] ?? 0) + 1;
  }
  return counts;
}

describe("strategies", () => {
  test("weighted 5/3/2 splits 1,500 requests within 5% of each weight; the header names the route that answered, as the providers saw", async () => {
    const { gateway, secret } = await gatewayWith({
      routing: "weighted",
      routes: [
        { provider: "east", model: "gpt-east", weight: 5 },
        { provider: "west", model: "gpt-west", weight: 3 },
        { provider: "north", model: "gpt-north", weight: 2 },
      ],
    });
    try {
      const responses = await chats(gateway, secret, 1500);
      expect(responses.filter((response) => response.status !== 200)).toEqual([]);
      const counts = byRouteHeader(responses);
      expect(counts).toEqual({ "east/gpt-east": received("east"), "west/gpt-west": received("west"), "north/gpt-north": received("north") });
      expect(Math.abs(received("east") / 1500 - 0.5)).toBeLessThan(0.05);
      expect(Math.abs(received("west") / 1500 - 0.3)).toBeLessThan(0.05);
      expect(Math.abs(received("north") / 1500 - 0.2)).toBeLessThan(0.05);
      expect(providers.east.received.every((request) => (request.body as { model: string }).model === "gpt-east")).toBe(true);
    } finally {
      await gateway.stop();
    }
  });

  test("the request log names the route each request took, and a built-in model's answer carries no route header", async () => {
    const { gateway, secret } = await gatewayWith({ routes: [{ provider: "west", model: "gpt-west" }] });
    try {
      expect((await chat(gateway, secret)).headers.get(ROUTE_HEADER)).toBe("west/gpt-west");
      const logs = await call(gateway.baseUrl, "GET", "/v1/account/logs", { bearer: gateway.provisioningKey });
      expect(logs.body.data.map((entry: { route?: string }) => entry.route)).toEqual(["west/gpt-west"]);
      const builtIn = await call(gateway.baseUrl, "POST", "/v1/responses", { bearer: secret, body: { model: "echo-1", input: "hello" } });
      expect(builtIn.status).toBe(200);
      expect(builtIn.headers.get(ROUTE_HEADER)).toBeNull();
    } finally {
      await gateway.stop();
    }
  });

  test("lowest-latency sends most requests away from a slow deployment", async () => {
    providers.east.answer(() => ({
      handle: (_request, response) => {
        setTimeout(() => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answered.json)), 150);
      },
    }));
    const { gateway, secret } = await gatewayWith({
      routing: "lowest-latency",
      routes: [{ provider: "east", model: "gpt-east" }, { provider: "west", model: "gpt-west" }, { provider: "north", model: "gpt-north" }],
    });
    try {
      const responses = await chats(gateway, secret, 300, 4);
      expect(responses.filter((response) => response.status !== 200)).toEqual([]);
      expect(received("east") / 300).toBeLessThan(0.2);
    } finally {
      await gateway.stop();
    }
  });

  test("least-busy sends new requests to the routes with fewer in flight", async () => {
    // east holds every request it gets until the test lets go: with them in flight, the next requests go elsewhere.
    const held: (() => void)[] = [];
    providers.east.answer(() => ({
      handle: (_request, response) => held.push(() => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answered.json))),
    }));
    const { gateway, secret } = await gatewayWith({ routing: "least-busy", routes: [{ provider: "east", model: "gpt-east" }, { provider: "west", model: "gpt-west" }] });
    try {
      const first = Array.from({ length: 4 }, () => chat(gateway, secret));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stuck = received("east");
      expect(stuck).toBeGreaterThan(0);
      const later = await chats(gateway, secret, 20, 1);
      expect(later.every((response) => response.headers.get(ROUTE_HEADER) === "west/gpt-west")).toBe(true);
      held.forEach((release) => release());
      await Promise.all(first);
    } finally {
      await gateway.stop();
    }
  });
});

describe("quotas", () => {
  test("a deployment at its requestsPerMinute is routed around instead of earning its 429", async () => {
    const { gateway, secret } = await gatewayWith({ routes: [{ provider: "east", model: "gpt-east", requestsPerMinute: 5 }, { provider: "west", model: "gpt-west" }] });
    try {
      const responses = await chats(gateway, secret, 30, 4);
      expect(responses.filter((response) => response.status !== 200)).toEqual([]);
      expect(received("east")).toBe(5);
      expect(received("west")).toBe(25);
      const metrics = await gateway.gateway.app.gateway.metrics.registry.metrics();
      expect(metrics).toContain('gateway_route_skipped_total{route="east/gpt-east",reason="quota"} 25');
      expect(metrics).toContain('gateway_route_quota_remaining{route="east/gpt-east",quota="requests"} 0');
      expect(metrics).toContain('gateway_route_attempts_total{route="west/gpt-west",outcome="answered"} 25');
    } finally {
      await gateway.stop();
    }
  });

  test("with every deployment full the client gets 429 with a Retry-After computed from the quotas, and no provider is sent more than its quota", async () => {
    const { gateway, secret } = await gatewayWith({
      routing: "weighted",
      routes: [{ provider: "east", model: "gpt-east", requestsPerMinute: 2 }, { provider: "west", model: "gpt-west", requestsPerMinute: 3 }],
    });
    try {
      const responses = await chats(gateway, secret, 8, 1);
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      expect(received("east")).toBe(2);
      expect(received("west")).toBe(3);
      const refused = responses[5]!;
      expect(refused.body.error.code).toBe("upstream_rate_limited");
      // west drains one request every 20 s (3 a minute): the soonest room.
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(20);
    } finally {
      await gateway.stop();
    }
  });

  test("tokensPerMinute counts each request's input and output bound, and gives back what the answer did not use", async () => {
    // Each request takes its input's bound (inference/input-bound.ts: about a hundred tokens for any
    // message) plus max_tokens 5, and gives back all but the 5 the answer used. Kept, a request's
    // whole bound would fill 200 tokens in two requests; given back, each leaves 5 behind.
    const { gateway, secret } = await gatewayWith({ routes: [{ provider: "east", model: "gpt-east", tokensPerMinute: 200 }, { provider: "west", model: "gpt-west" }] });
    try {
      const responses = await chats(gateway, secret, 60, 1);
      expect(responses.filter((response) => response.status !== 200)).toEqual([]);
      expect(received("east")).toBeGreaterThanOrEqual(10);
      expect(received("east")).toBeLessThan(40);
      expect(received("west")).toBe(60 - received("east"));
    } finally {
      await gateway.stop();
    }
  });
});

describe("cooldowns", () => {
  test("a failing deployment is skipped after its threshold, probed once per cooldown, and takes traffic again once its probe answers", async () => {
    providers.east.answer(() => ({ status: 500, json: { error: { message: "down" } } }));
    const { gateway, secret } = await gatewayWith({ routes: [{ provider: "east", model: "gpt-east" }, { provider: "west", model: "gpt-west" }] }, { failures: 3, windowSeconds: 10, seconds: 0.5 });
    try {
      const first = await chats(gateway, secret, 20, 1);
      expect(first.every((response) => response.status === 200 && response.headers.get(ROUTE_HEADER) === "west/gpt-west")).toBe(true);
      // Three failures cooled it: the seventeen requests after them went straight to west.
      expect(received("east")).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 600));
      // Still down: the one probe fails, and the route cools again.
      await chats(gateway, secret, 10, 1);
      expect(received("east")).toBe(4);
      providers.east.answer(() => answered);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const recovered = await chats(gateway, secret, 5, 1);
      expect(recovered.map((response) => response.headers.get(ROUTE_HEADER))).toEqual(Array(5).fill("east/gpt-east"));
      const metrics = await gateway.gateway.app.gateway.metrics.registry.metrics();
      expect(metrics).toMatch(/gateway_route_cooldowns_total\{route="east\/gpt-east"\} [12]/);
      expect(metrics).toMatch(/gateway_route_attempts_total\{route="east\/gpt-east",outcome="failed"\} 4/);
      expect(metrics).toMatch(/gateway_route_skipped_total\{route="east\/gpt-east",reason="cooling"\} \d+/);
    } finally {
      await gateway.stop();
    }
  });

  test("a 429 with Retry-After cools the route for that long; a lone failing route is still tried (nothing else could answer)", async () => {
    providers.east.answer(() => ({ status: 429, json: { error: { message: "slow down" } }, headers: { "retry-after": "60" } }));
    const { gateway, secret } = await gatewayWith({ routes: [{ provider: "east", model: "gpt-east" }, { provider: "west", model: "gpt-west" }] }, { failures: 1, windowSeconds: 10, seconds: 0.1 });
    try {
      await chats(gateway, secret, 3, 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await chats(gateway, secret, 3, 1);
      expect(received("east")).toBe(1);
    } finally {
      await gateway.stop();
    }
    providers.west.received.splice(0);
    providers.west.answer(() => ({ status: 503, json: { error: { message: "down" } } }));
    const alone = await gatewayWith({ routes: [{ provider: "west", model: "gpt-west" }] }, { failures: 1, windowSeconds: 10, seconds: 60 });
    try {
      const responses = await chats(alone.gateway, alone.secret, 3, 1);
      expect(responses.map((response) => response.status)).toEqual([502, 502, 502]);
      expect(received("west")).toBe(3);
    } finally {
      await alone.gateway.stop();
    }
  });
});

describe("config", () => {
  test("a bad weight, strategy or duplicate route is refused naming its path", () => {
    const parsed = GatewayConfig.safeParse({
      providers: { east: { kind: "openai", baseUrl: "http://127.0.0.1:1/v1", apiKeyEnv: KEY_ENV } },
      models: [
        {
          id: "m",
          family: "chat",
          routing: "fastest",
          routes: [{ provider: "east", model: "a", weight: 0 }, { provider: "east", model: "b", requestsPerMinute: 1.5 }, { provider: "east", model: "b" }],
          pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" },
          maxOutputTokens: 10,
        },
      ],
    });
    expect(parsed.success).toBe(false);
    const issues = parsed.error!.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    expect(issues).toEqual(
      expect.arrayContaining([
        'models.0.routing: expected "ordered", "weighted", "least-busy" or "lowest-latency"',
        "models.0.routes.0.weight: expected a positive number",
        expect.stringMatching(/^models\.0\.routes\.1\.requestsPerMinute: /),
      ]),
    );
    const twice = GatewayConfig.safeParse({
      providers: { east: { kind: "openai", baseUrl: "http://127.0.0.1:1/v1", apiKeyEnv: KEY_ENV } },
      models: [
        {
          id: "m",
          family: "chat",
          routes: [{ provider: "east", model: "b" }, { provider: "east", model: "b", weight: 2 }],
          pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" },
          maxOutputTokens: 10,
        },
      ],
    });
    expect(twice.error?.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`)).toEqual(['models.0.routes.1: the route "east/b" is listed twice']);
  });
});
