/**
 * A key's rate limit policy on this file's store, with an injected clock: requests and tokens per
 * minute (buckets that refill continuously), requests in flight; refusals are 429
 * key_rate_limited with Retry-After, retry-after-ms and OpenAI's x-ratelimit-* headers, and the
 * official openai client waits as told and succeeds.
 */
import { randomUUID } from "node:crypto";
import OpenAI from "openai";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startScriptedProvider, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { createTestClock, startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { expectError, respond } from "./helpers";

const PROVIDER_KEY_ENV = "GATEWAY_TEST_RATE_PROVIDER_KEY";
const clock = createTestClock(Date.UTC(2030, 0, 1));
let gateway: TestGateway;
let provider: ScriptedProvider;
/** Requests the provider holds until the test lets them go. */
const held: Array<() => void> = [];

beforeAll(async () => {
  process.env[PROVIDER_KEY_ENV] = "sk-held";
  provider = await startScriptedProvider();
  provider.answer(() => ({
    handle: (_request, response) => {
      held.push(() => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify(chatAnswer()));
      });
    },
  }));
  const config = GatewayConfig.parse({
    providers: { held: { kind: "openai", baseUrl: `${provider.origin}/v1`, apiKeyEnv: PROVIDER_KEY_ENV, timeoutMs: 10_000 } },
    models: [
      {
        id: "held-1",
        family: "chat",
        routes: [{ provider: "held", model: "up" }],
        pricing: { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" },
        maxOutputTokens: 10,
      },
    ],
  });
  gateway = await startTestGateway({ clock: clock.now, config });
});
afterAll(async () => {
  for (const release of held.splice(0)) release();
  await gateway?.stop();
  await provider?.close();
  delete process.env[PROVIDER_KEY_ENV];
});

function chatAnswer() {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "up",
    choices: [{ index: 0, message: { role: "assistant", content: "ok", refusal: null }, finish_reason: "stop", logprobs: null }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

const one = { model: "echo-1", input: "hello", max_output_tokens: 1 }; // 1 + 1 tokens

test("requestsPerMinute: the bucket admits a minute's worth at once, then one more each 60/limit seconds", async () => {
  clock.set(Date.UTC(2030, 0, 1));
  const key = await gateway.createRegularKey({ rateLimitPolicy: { requestsPerMinute: 3 } });
  const first = await respond(gateway, key.secret, one);
  expect(first.status).toBe(200);
  expect(Object.fromEntries(["limit", "remaining", "reset"].map((name) => [name, first.headers.get(`x-ratelimit-${name}-requests`)]))).toEqual({
    limit: "3",
    remaining: "2",
    reset: "20s",
  });
  expect((await respond(gateway, key.secret, one)).status).toBe(200);
  expect((await respond(gateway, key.secret, one)).status).toBe(200);
  const refused = await respond(gateway, key.secret, one);
  expect(expectError(refused, 429, "key_rate_limited").message).toContain("requestsPerMinute (3)");
  expect(refused.headers.get("retry-after")).toBe("20");
  expect(refused.headers.get("retry-after-ms")).toBe("20000");
  expect(refused.headers.get("x-ratelimit-remaining-requests")).toBe("0");

  clock.advance(19_999);
  expectError(await respond(gateway, key.secret, one), 429, "key_rate_limited");
  clock.advance(1);
  expect((await respond(gateway, key.secret, one)).status).toBe(200);
});

test("tokensPerMinute counts a request's input and output bound, gives back what it did not use, and refuses a request larger than a minute's limit", async () => {
  clock.set(Date.UTC(2030, 1, 1));
  const key = await gateway.createRegularKey({ rateLimitPolicy: { tokensPerMinute: 20 } });
  // count-1 on "hi": 1 input token, bound 9 → admitted with 10; it answers 5 tokens, so 6 are used.
  const body = { model: "count-1", input: "hi", max_output_tokens: 9 };
  const first = await respond(gateway, key.secret, body);
  expect(first.status).toBe(200);
  expect(first.headers.get("x-ratelimit-remaining-tokens")).toBe("10");
  // 6 used, 14 left: one more of 10 fits, not two.
  expect((await respond(gateway, key.secret, body)).status).toBe(200);
  const refused = await respond(gateway, key.secret, body);
  expect(expectError(refused, 429, "key_rate_limited").message).toContain("tokensPerMinute (20)");
  expect(Number(refused.headers.get("retry-after-ms"))).toBe(6000); // 12 used + 10 asked − 20 = 2 tokens at 3 s each

  const tooLarge = await respond(gateway, key.secret, { model: "echo-1", input: "hello", max_output_tokens: 100 });
  expect(expectError(tooLarge, 429, "key_rate_limited").message).toContain("more than the key's rateLimitPolicy.tokensPerMinute (20) allows in a minute");
  expect(tooLarge.headers.get("retry-after")).toBeNull();
});

test("maxConcurrentRequests: requests in flight beyond the limit are refused until one ends", async () => {
  clock.set(Date.UTC(2030, 2, 1));
  const key = await gateway.createRegularKey({ rateLimitPolicy: { maxConcurrentRequests: 2 } });
  const chat = (content: string) => respondChat(key.secret, content);
  const inFlight = [chat("a"), chat("b")];
  await waitFor(() => held.length === 2);
  const refused = await chat("c");
  expect(expectError(refused, 429, "key_rate_limited").message).toContain("2 requests in flight");
  expect(refused.headers.get("retry-after")).toBe("1");
  // The provider holds them in the order they reached it, which need not be the order sent.
  held.shift()!();
  const ended = await Promise.race(inFlight.map((answer, index) => answer.then((settled) => ({ index, settled }))));
  expect(ended.settled.status).toBe(200);
  const third = chat("d");
  await waitFor(() => held.length === 2);
  for (const release of held.splice(0)) release();
  expect((await Promise.all([inFlight[1 - ended.index]!, third])).map((answer) => answer.status)).toEqual([200, 200]);
  expect(provider.received.filter((request) => request.path === "/v1/chat/completions")).toHaveLength(3);
});

test("the official openai client honours the refusal's retry timing and then succeeds", async () => {
  clock.set(Date.UTC(2030, 3, 1));
  const key = await gateway.createRegularKey({ rateLimitPolicy: { maxConcurrentRequests: 1 } });
  const client = new OpenAI({ apiKey: key.secret, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 2 });
  const received = () => provider.received.length;
  const first = respondChat(key.secret, "first");
  await waitFor(() => held.length === 1);
  const before = received();
  // Refused at once, the client is told to wait a second; the held request ends meanwhile.
  const started = Date.now();
  const second = client.chat.completions.create({ model: "held-1", messages: [{ role: "user", content: "second" }] });
  setTimeout(() => held.shift()!(), 200);
  await waitFor(() => received() === before + 1, 5000);
  await waitFor(() => held.length === 1);
  held.shift()!();
  expect((await second).choices[0]!.message.content).toBe("ok");
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect((await first).status).toBe(200);
});

function respondChat(secret: string, content: string) {
  return fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", "x-request": randomUUID() },
    body: JSON.stringify({ model: "held-1", messages: [{ role: "user", content }] }),
  }).then(async (response) => {
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
