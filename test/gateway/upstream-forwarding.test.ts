/**
 * Forwarding to upstream providers: the upstream is a second gateway (a real server speaking both
 * wires), configured once as an `openai` provider and once as an `anthropic` one, so a request
 * crosses a real translation in each direction and real SSE parsing on both sides.
 */
import Anthropic from "@anthropic-ai/sdk";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient } from "./helpers";

const UPSTREAM_KEY_ENV = "GATEWAY_TEST_UPSTREAM_KEY";
let upstream: TestGateway;
let failing: Server;
let front: TestGateway;
let frontKey: string;

/** A provider that answers every request with 503, or resets mid-stream when asked to. */
async function startFailingUpstream(): Promise<Server> {
  const server = createServer((_request, response) => {
    response.writeHead(503, { "content-type": "application/json" }).end('{"error":{"message":"overloaded"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

beforeAll(async () => {
  upstream = await startTestGateway({ storage: "memory" });
  const upstreamKey = await upstream.createRegularKey({ name: "front gateway's key at the upstream" });
  process.env[UPSTREAM_KEY_ENV] = upstreamKey.secret;
  failing = await startFailingUpstream();
  const failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
  const config = GatewayConfig.parse({
    providers: {
      "up-openai": { kind: "openai", baseUrl: `${upstream.baseUrl}/v1`, apiKeyEnv: UPSTREAM_KEY_ENV, timeoutMs: 5000 },
      "up-anthropic": { kind: "anthropic", baseUrl: upstream.baseUrl, apiKeyEnv: UPSTREAM_KEY_ENV, timeoutMs: 5000 },
      broken: { kind: "openai", baseUrl: `${failingUrl}/v1`, apiKeyEnv: UPSTREAM_KEY_ENV, timeoutMs: 5000 },
    },
    models: [
      { id: "via-openai", family: "chat", routes: [{ provider: "up-openai", model: "echo-1" }], pricing: { inputUnitsPerMillionTokens: "1000000", outputUnitsPerMillionTokens: "2000000" }, maxOutputTokens: 100 },
      { id: "via-anthropic", family: "chat", routes: [{ provider: "up-anthropic", model: "reverse-1" }], pricing: { inputUnitsPerMillionTokens: "1000000", outputUnitsPerMillionTokens: "2000000" }, maxOutputTokens: 100 },
      {
        id: "with-fallback",
        family: "chat",
        routes: [{ provider: "broken", model: "any" }, { provider: "up-anthropic", model: "echo-1" }],
        pricing: { inputUnitsPerMillionTokens: "1000000", outputUnitsPerMillionTokens: "2000000" },
        maxOutputTokens: 100,
      },
      { id: "only-broken", family: "chat", routes: [{ provider: "broken", model: "any" }], pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" }, maxOutputTokens: 100 },
    ],
  });
  front = await startTestGateway({ storage: "memory", config });
  frontKey = (await front.createRegularKey({ name: "client" })).secret;
});

afterAll(async () => {
  await front?.stop();
  await upstream?.stop();
  await new Promise((resolve) => failing?.close(resolve));
  delete process.env[UPSTREAM_KEY_ENV];
});

const openai = () => new OpenAI({ apiKey: frontKey, baseURL: `${front.baseUrl}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: frontKey, baseURL: front.baseUrl, maxRetries: 0 });

test("a chat completion for an openai-wire model is forwarded and answered with the upstream's text and usage", async () => {
  const completion = await openai().chat.completions.create({ model: "via-openai", messages: [{ role: "user", content: "hello upstream" }] });
  expect(completion.choices[0]!.message.content).toBe("hello upstream");
  expect(completion.usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 2 });
});

test("Anthropic messages to an openai-wire model are translated there and back, streamed", async () => {
  const stream = anthropic().messages.stream({ model: "via-openai", max_tokens: 50, system: "be brief", messages: [{ role: "user", content: "translated both ways" }] });
  const message = await stream.finalMessage();
  expect(message.content).toEqual([{ type: "text", text: "translated both ways" }]);
  expect(message.stop_reason).toBe("end_turn");
});

test("a streamed chat completion for an anthropic-wire model is translated, with usage only when asked", async () => {
  let text = "";
  let usageChunks = 0;
  const plain = await openai().chat.completions.create({ model: "via-anthropic", messages: [{ role: "user", content: "abc def" }], stream: true });
  for await (const chunk of plain) {
    text += chunk.choices[0]?.delta?.content ?? "";
    if (chunk.usage) usageChunks++;
  }
  expect(text).toBe("fed cba");
  expect(usageChunks).toBe(0);
  const withUsage = await openai().chat.completions.create({ model: "via-anthropic", messages: [{ role: "user", content: "abc def" }], stream: true, stream_options: { include_usage: true } });
  const usages = [];
  for await (const chunk of withUsage) if (chunk.usage) usages.push(chunk.usage);
  expect(usages).toEqual([{ prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 }]);
});

test("max tokens reach the anthropic upstream and its max_tokens stop comes back as finish_reason length", async () => {
  const completion = await openai().chat.completions.create({ model: "via-anthropic", max_tokens: 2, messages: [{ role: "user", content: "one two three four" }] });
  expect(completion.choices[0]!.finish_reason).toBe("length");
  expect(completion.usage?.completion_tokens).toBe(2);
});

test("a model whose first route fails falls back to the next before the first byte, and is charged from the upstream's usage", async () => {
  const key = await front.createRegularKey({ name: "fallback payer" });
  const client = new OpenAI({ apiKey: key.secret, baseURL: `${front.baseUrl}/v1`, maxRetries: 0 });
  const completion = await client.chat.completions.create({ model: "with-fallback", messages: [{ role: "user", content: "still here" }] });
  expect(completion.choices[0]!.message.content).toBe("still here");
  // 2 input tokens at 1 unit each, 2 output tokens at 2 units each.
  expect((await accountClient(front).get(key.keyId)).body.spentUnits).toBe("6");
});

test("a model whose only route fails answers 502 upstream_failed in the wire's envelope, and charges nothing", async () => {
  const key = await front.createRegularKey({ name: "failure payer" });
  const client = new OpenAI({ apiKey: key.secret, baseURL: `${front.baseUrl}/v1`, maxRetries: 0 });
  const failure = await client.chat.completions.create({ model: "only-broken", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(OpenAI.APIError);
  expect(failure).toMatchObject({ status: 502, code: "upstream_failed" });
  const viaAnthropic = await new Anthropic({ apiKey: key.secret, baseURL: front.baseUrl, maxRetries: 0 })
    .messages.create({ model: "only-broken", max_tokens: 5, messages: [{ role: "user", content: "x" }] })
    .catch((error: unknown) => error);
  expect(viaAnthropic).toMatchObject({ status: 502, error: { type: "error", error: { type: "api_error" } } });
  expect((await accountClient(front).get(key.keyId)).body.spentUnits).toBe("0");
});

test("the configured models are listed beside the built-in ones, with their prices and owners", async () => {
  const ids: string[] = [];
  for await (const model of openai().models.list()) ids.push(model.id);
  expect(ids).toEqual(expect.arrayContaining(["via-openai", "via-anthropic", "with-fallback", "echo-1", "hash-embed-1"]));
});

test("a config that names a missing provider, or no key variable, is refused naming the path", () => {
  const result = GatewayConfig.safeParse({ providers: {}, models: [{ id: "m", family: "chat", routes: [{ provider: "nope", model: "x" }], pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" }, maxOutputTokens: 1 }] });
  expect(result.success).toBe(false);
  expect(result.error?.issues.map((issue) => issue.path.join("."))).toContain("models.0.routes.0.provider");
});

test("a provider is of a kind; one written with the older `wire` field is read as that kind, and an unknown kind is named", () => {
  const models = [{ id: "m", family: "chat", routes: [{ provider: "p", model: "x" }], pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" }, maxOutputTokens: 1 }];
  const older = GatewayConfig.parse({ providers: { p: { wire: "anthropic", baseUrl: "https://api.anthropic.com", apiKeyEnv: "K" } }, models });
  expect(older.providers.p).toMatchObject({ kind: "anthropic", baseUrl: "https://api.anthropic.com", timeoutMs: 60_000 });
  const unknown = GatewayConfig.safeParse({ providers: { p: { kind: "carrier-pigeon", baseUrl: "https://x", apiKeyEnv: "K" } }, models });
  expect(unknown.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([["providers.p.kind", expect.stringMatching(/^expected kind "openai", "anthropic"/)]]);
});
