/**
 * Upstreams that fail in the ways real ones do — no answer at all, a reset or a stall midway
 * through a stream, a stream cut without its end, an answer without usage — seen through the
 * official SDKs, with the exact charge each leaves on the key.
 *
 * The upstream is a scripted OpenAI-wire server: the upstream model name picks its behaviour. The
 * models below cost 1 unit per input token and 2 per output token; every request sends the prompt
 * "abc def" (2 tokens) with max_tokens 10, so its reservation is 2 + 10 × 2 = 22 units.
 */
import Anthropic from "@anthropic-ai/sdk";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import OpenAI from "openai";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient } from "./helpers";

const UPSTREAM_KEY_ENV = "GATEWAY_TEST_SCRIPTED_UPSTREAM_KEY";
const TIMEOUT_MS = 400;
const RESERVATION_UNITS = "22";
const PROMPT = [{ role: "user" as const, content: "abc def" }];

type Behaviour = "ok" | "stall" | "reset-mid" | "stall-mid" | "cut-mid" | "no-usage";

const chunk = (content: string) => `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const finish = `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`;
const usage = `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } })}\n\n`;

/** Answers as the request's `model` says; counts requests per behaviour. */
function scriptedUpstream(): { server: Server; requests: Map<Behaviour, number> } {
  const requests = new Map<Behaviour, number>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let raw = "";
    request.on("data", (part: Buffer) => (raw += part));
    request.on("end", () => {
      const body = JSON.parse(raw) as { model: Behaviour; stream?: boolean };
      requests.set(body.model, (requests.get(body.model) ?? 0) + 1);
      const sse = () => response.writeHead(200, { "content-type": "text/event-stream" });
      switch (body.model) {
        case "stall":
          return; // never answers
        case "reset-mid":
          sse();
          response.write(chunk("hello") + chunk(" world"));
          setTimeout(() => request.socket.destroy(), 50);
          return;
        case "stall-mid":
          sse();
          response.write(chunk("hello") + chunk(" world"));
          return;
        case "cut-mid":
          sse();
          response.end(chunk("hello") + chunk(" world"));
          return;
        case "no-usage":
          if (!body.stream) {
            response.writeHead(200, { "content-type": "application/json" });
            return response.end(JSON.stringify({ choices: [{ message: { content: "hello world" }, finish_reason: "stop" }] }));
          }
          sse();
          return response.end(chunk("hello") + chunk(" world") + finish + "data: [DONE]\n\n");
        case "ok":
          if (!body.stream) {
            response.writeHead(200, { "content-type": "application/json" });
            return response.end(
              JSON.stringify({ choices: [{ message: { content: "hello world" }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 2 } }),
            );
          }
          sse();
          return response.end(chunk("hello") + chunk(" world") + finish + usage + "data: [DONE]\n\n");
      }
    });
  });
  return { server, requests };
}

const pricing = { inputUnitsPerMillionTokens: "1000000", outputUnitsPerMillionTokens: "2000000" };
const routesOf = (...behaviours: Behaviour[]) => behaviours.map((model) => ({ provider: "scripted", model }));

let scripted: ReturnType<typeof scriptedUpstream>;
const sockets = new Set<Socket>();
let front: TestGateway;

beforeAll(async () => {
  process.env[UPSTREAM_KEY_ENV] = "upstream-secret-not-a-real-key";
  scripted = scriptedUpstream();
  scripted.server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => scripted.server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(scripted.server.address() as AddressInfo).port}/v1`;
  const model = (id: string, ...behaviours: Behaviour[]) => ({ id, family: "chat", routes: routesOf(...behaviours), pricing, maxOutputTokens: 100 });
  const config = GatewayConfig.parse({
    providers: { scripted: { kind: "openai", baseUrl, apiKeyEnv: UPSTREAM_KEY_ENV, timeoutMs: TIMEOUT_MS } },
    models: [
      model("silent", "stall"),
      model("silent-then-ok", "stall", "ok"),
      model("resets-midway", "reset-mid", "ok"),
      model("stalls-midway", "stall-mid"),
      model("cut-midway", "cut-mid"),
      model("no-usage", "no-usage"),
    ],
  });
  front = await startTestGateway({ storage: "memory", config });
});

afterAll(async () => {
  await front?.stop();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => scripted?.server.close(resolve));
  delete process.env[UPSTREAM_KEY_ENV];
});

/** A fresh key, so each test reads its own charge, and clients of both SDKs for it. */
async function payer() {
  const key = await front.createRegularKey({ name: "payer" });
  return {
    openai: new OpenAI({ apiKey: key.secret, baseURL: `${front.baseUrl}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key.secret, baseURL: front.baseUrl, maxRetries: 0 }),
    spentUnits: async () => (await accountClient(front).get(key.keyId)).body.spentUnits,
  };
}

/** Reads an OpenAI stream to its end or its error: the text that arrived, and the error. */
async function readChatStream(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  let text = "";
  try {
    for await (const piece of stream) text += piece.choices[0]?.delta?.content ?? "";
    return { text, error: undefined };
  } catch (error) {
    return { text, error };
  }
}

test("an upstream that never answers is a 504 upstream_timeout after the provider's timeout, and costs nothing", async () => {
  const { openai, spentUnits } = await payer();
  const started = Date.now();
  const failure = await openai.chat.completions.create({ model: "silent", max_tokens: 10, messages: PROMPT }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(OpenAI.APIError);
  expect(failure).toMatchObject({ status: 504, code: "upstream_timeout" });
  expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  expect(await spentUnits()).toBe("0");
});

test("a stream whose first route times out before its first byte falls back to the next, charged from its usage", async () => {
  const { openai, spentUnits } = await payer();
  const before = scripted.requests.get("ok") ?? 0;
  const stream = await openai.chat.completions.create({ model: "silent-then-ok", max_tokens: 10, messages: PROMPT, stream: true });
  expect(await readChatStream(stream)).toEqual({ text: "hello world", error: undefined });
  expect(scripted.requests.get("ok")).toBe(before + 1);
  // The upstream's usage: 3 input tokens at 1 unit, 2 output tokens at 2 units.
  expect(await spentUnits()).toBe("7");
});

test("an upstream reset midway through a stream ends it with an error event, tries no other route, and charges the reservation", async () => {
  const { openai, spentUnits } = await payer();
  const okBefore = scripted.requests.get("ok") ?? 0;
  const stream = await openai.chat.completions.create({ model: "resets-midway", max_tokens: 10, messages: PROMPT, stream: true });
  const { text, error } = await readChatStream(stream);
  expect(text).toBe("hello world");
  expect(error).toBeInstanceOf(OpenAI.APIError);
  expect((error as InstanceType<typeof OpenAI.APIError>).message).toMatch(/connection to the provider scripted failed/);
  // A second route would repeat text the client already has.
  expect(scripted.requests.get("ok") ?? 0).toBe(okBefore);
  expect(await spentUnits()).toBe(RESERVATION_UNITS);
});

test("an upstream that stalls midway through a stream is cut at the timeout with an upstream_timeout error event, charged the reservation", async () => {
  const { openai, spentUnits } = await payer();
  const stream = await openai.chat.completions.create({ model: "stalls-midway", max_tokens: 10, messages: PROMPT, stream: true });
  const { text, error } = await readChatStream(stream);
  expect(text).toBe("hello world");
  expect(error).toMatchObject({ error: { code: "upstream_timeout" } });
  expect(await spentUnits()).toBe(RESERVATION_UNITS);
});

test("a stream the upstream closes without its end is a failure, not a short answer, and is charged the reservation", async () => {
  const { openai, spentUnits } = await payer();
  const stream = await openai.chat.completions.create({ model: "cut-midway", max_tokens: 10, messages: PROMPT, stream: true });
  const { text, error } = await readChatStream(stream);
  expect(text).toBe("hello world");
  expect(error).toMatchObject({ error: { code: "upstream_failed" } });
  expect(await spentUnits()).toBe(RESERVATION_UNITS);
});

test("an Anthropic stream whose upstream resets midway gets an error event the SDK raises, and is charged the reservation", async () => {
  const { anthropic, spentUnits } = await payer();
  let text = "";
  const stream = anthropic.messages.stream({ model: "resets-midway", max_tokens: 10, messages: PROMPT });
  stream.on("text", (piece) => (text += piece));
  const failure = await stream.finalMessage().catch((error: unknown) => error);
  expect(text).toBe("hello world");
  expect(failure).toBeInstanceOf(Error);
  expect(String((failure as Error).message)).toMatch(/api_error|connection to the provider scripted failed/);
  expect(await spentUnits()).toBe(RESERVATION_UNITS);
});

test("an upstream that reports no usage is charged the reservation, streamed or not, and the answer still arrives", async () => {
  const streamed = await payer();
  const stream = await streamed.openai.chat.completions.create({ model: "no-usage", max_tokens: 10, messages: PROMPT, stream: true });
  expect(await readChatStream(stream)).toEqual({ text: "hello world", error: undefined });
  expect(await streamed.spentUnits()).toBe(RESERVATION_UNITS);

  const whole = await payer();
  const completion = await whole.openai.chat.completions.create({ model: "no-usage", max_tokens: 10, messages: PROMPT });
  expect(completion.choices[0]!.message.content).toBe("hello world");
  // Relayed as the provider wrote it, with no usage; the charge takes each count at the reservation's figure.
  expect(completion.usage).toBeUndefined();
  expect(await whole.spentUnits()).toBe(RESERVATION_UNITS);
});
