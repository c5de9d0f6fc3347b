/**
 * The agent frameworks teams put in front of a gateway — the Vercel AI SDK (`ai` with
 * `@ai-sdk/openai` and `@ai-sdk/anthropic`), LangChain JS (`@langchain/openai`,
 * `@langchain/anthropic`) and the OpenAI Agents SDK (`@openai/agents`) — run their tool loops
 * through the gateway, whole and streamed, on every kind of model:
 *   - built-in: `tools-1` (calls the declared tool with the prompt, then answers with its result);
 *   - same wire: a model relayed to a provider of the client's wire;
 *   - translated: a model whose provider speaks the other wire.
 * The provider behind the forwarded models is a second gateway serving `tools-1` on both wires, so
 * each tool loop needs the provider to call the tool and then answer from its result.
 *
 * The frameworks run in a child process (frameworks/run.mjs): the Vercel AI SDK ships as ESM only.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";

const RUNNER = join(__dirname, "frameworks", "run.mjs");
const PROVIDER_KEY_ENV = "GATEWAY_TEST_FRAMEWORKS_PROVIDER_KEY";
const PRICING = { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" };

/** Each framework client and the wire it speaks. */
const CLIENTS = {
  "vercel-chat": "openai",
  "vercel-responses": "openai",
  "vercel-anthropic": "anthropic",
  "langchain-openai": "openai",
  "langchain-openai-responses": "openai",
  "langchain-anthropic": "anthropic",
  agents: "openai",
} as const;
type Client = keyof typeof CLIENTS;

/** A forwarded model of each provider wire, both in front of the provider gateway's `tools-1`. */
const FORWARDED = { openai: "tools-via-openai", anthropic: "tools-via-anthropic" } as const;

interface Case {
  client: Client;
  model: string;
  stream?: boolean;
  embed?: boolean;
  api?: "chat";
}
interface Outcome extends Case {
  ok: boolean;
  text?: string;
  calls: unknown[];
  error?: string;
  dimensions?: number;
}

let provider: TestGateway;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  provider = await startTestGateway({ storage: "memory" });
  process.env[PROVIDER_KEY_ENV] = (await provider.createRegularKey({ name: "upstream" })).secret;
  const config = GatewayConfig.parse({
    providers: {
      "up-openai": { kind: "openai", baseUrl: `${provider.baseUrl}/v1`, apiKeyEnv: PROVIDER_KEY_ENV },
      "up-anthropic": { kind: "anthropic", baseUrl: provider.baseUrl, apiKeyEnv: PROVIDER_KEY_ENV },
    },
    models: [
      { id: FORWARDED.openai, family: "chat", routes: [{ provider: "up-openai", model: "tools-1" }], pricing: PRICING, maxOutputTokens: 4096 },
      { id: FORWARDED.anthropic, family: "chat", routes: [{ provider: "up-anthropic", model: "tools-1" }], pricing: PRICING, maxOutputTokens: 4096 },
      { id: "embed-via-openai", family: "embeddings", routes: [{ provider: "up-openai", model: "hash-embed-1" }], pricing: { inputUnitsPerMillionTokens: "1" } },
    ],
  });
  gateway = await startTestGateway({ storage: "memory", config });
  key = (await gateway.createRegularKey({ name: "frameworks" })).secret;
});

afterAll(async () => {
  await gateway?.stop();
  await provider?.stop();
  delete process.env[PROVIDER_KEY_ENV];
});

async function run(cases: Case[]): Promise<Outcome[]> {
  const job = JSON.stringify({ baseUrl: gateway.baseUrl, key, cases });
  const { stdout } = await promisify(execFile)(process.execPath, [RUNNER, job], { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
  const outcomes = JSON.parse(stdout) as Outcome[];
  expect(outcomes).toHaveLength(cases.length);
  return outcomes;
}

const clients = Object.keys(CLIENTS) as Client[];
/** Every client, whole and streamed, on a model. */
const loopsOn = (model: (client: Client) => string): Case[] => clients.flatMap((client) => [false, true].map((stream) => ({ client, model: model(client), stream })));
/** The outcome every tool loop must reach: `lookup` ran once with the city, and the model answered with its result. */
const LOOPED = { ok: true, calls: [{ city: "Paris" }], text: "sunny in Paris" };

/** Every outcome looped; a failure shows its client, model and error. */
function expectAllLooped(outcomes: Outcome[]): void {
  const seen = outcomes.map(({ client, model, stream, ok, calls, text, error }) => ({ client, model, stream, ok, calls, text, error }));
  expect(seen).toEqual(outcomes.map(({ client, model, stream }) => ({ client, model, stream, ...LOOPED, error: undefined })));
}

test("each framework's tool loop runs on a built-in model, whole and streamed", async () => {
  const outcomes = await run([...loopsOn(() => "tools-1"), { client: "agents", api: "chat", model: "tools-1", stream: false }]);
  expectAllLooped(outcomes);
});

test("each framework's tool loop runs on a model relayed to a provider of its own wire", async () => {
  expectAllLooped(await run(loopsOn((client) => FORWARDED[CLIENTS[client]])));
});

test("each framework's tool loop runs on a model translated to a provider of the other wire", async () => {
  expectAllLooped(await run(loopsOn((client) => FORWARDED[CLIENTS[client] === "openai" ? "anthropic" : "openai"])));
});

test("the frameworks' embeddings reach built-in and forwarded embedding models", async () => {
  const outcomes = await run(["hash-embed-1", "embed-via-openai"].flatMap((model) => [{ client: "vercel-chat" as const, model, embed: true }, { client: "langchain-openai" as const, model, embed: true }]));
  expect(outcomes.map(({ ok, dimensions, error }) => ({ ok, dimensions, error }))).toEqual(outcomes.map(() => ({ ok: true, dimensions: 256, error: undefined })));
});
