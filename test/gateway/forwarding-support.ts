/**
 * What the forwarding suites share: a scripted provider (testkit/scripted-provider.ts) configured
 * twice in one gateway — once as an OpenAI-wire provider, once as an Anthropic one — and the
 * official clients pointed at the gateway with a fresh key each test.
 *
 * Models (1 credit per input token, 2 per output token, `maxOutputTokens` 100):
 *   gpt    → the OpenAI-wire provider, model `gpt-up`
 *   claude → the Anthropic-wire provider, model `claude-up`
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { CreateApiKeyRequest } from "@gateway-keys/contract";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startScriptedProvider, type Script, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "@gateway-keys/testkit/test-gateway";
import { accountClient } from "./helpers";

export const PROVIDER_KEY_ENV = "GATEWAY_TEST_FORWARDING_PROVIDER_KEY";
/** The provider's key: it must reach the provider, and never a client or a log. */
export const PROVIDER_KEY = "sk-provider-0123456789abcdef";
export const PRICING = { inputUnitsPerMillionTokens: "1000000", outputUnitsPerMillionTokens: "2000000" };

export interface Forwarding {
  provider: ScriptedProvider;
  gateway: TestGateway;
}

/** Starts the provider and a gateway in front of it; `models` adds to the two above, `options` to the gateway's. */
export function useForwarding(models: object[] = [], options: Omit<TestGatewayOptions, "config"> = {}): () => Forwarding {
  let state: Forwarding | undefined;
  beforeAll(async () => {
    process.env[PROVIDER_KEY_ENV] = PROVIDER_KEY;
    const provider = await startScriptedProvider();
    const config = GatewayConfig.parse({
      providers: {
        oai: { kind: "openai", baseUrl: `${provider.origin}/v1`, apiKeyEnv: PROVIDER_KEY_ENV, timeoutMs: 2000 },
        ant: { kind: "anthropic", baseUrl: provider.origin, apiKeyEnv: PROVIDER_KEY_ENV, timeoutMs: 2000 },
      },
      models: [
        { id: "gpt", family: "chat", routes: [{ provider: "oai", model: "gpt-up" }], pricing: PRICING, maxOutputTokens: 100 },
        { id: "claude", family: "chat", routes: [{ provider: "ant", model: "claude-up" }], pricing: PRICING, maxOutputTokens: 100 },
        ...models,
      ],
    });
    state = { provider, gateway: await startTestGateway({ storage: "memory", ...options, config }) };
  });
  beforeEach(() => state?.provider.received.splice(0));
  afterAll(async () => {
    await state?.gateway.stop();
    await state?.provider.close();
    delete process.env[PROVIDER_KEY_ENV];
  });
  return () => {
    if (!state) throw new Error("useForwarding: the gateway is not started yet (call it at the top of the file)");
    return state;
  };
}

/** A fresh key (so each test reads its own charge) and both official clients for it, retries off unless asked. */
export async function clientsOf(forwarding: Forwarding, key: Partial<CreateApiKeyRequest> = {}, maxRetries = 0) {
  const created = await forwarding.gateway.createRegularKey({ name: "forwarding", ...key });
  return {
    keyId: created.keyId,
    secret: created.secret,
    openai: new OpenAI({ apiKey: created.secret, baseURL: `${forwarding.gateway.baseUrl}/v1`, maxRetries }),
    anthropic: new Anthropic({ apiKey: created.secret, baseURL: forwarding.gateway.baseUrl, maxRetries }),
    spentUnits: async () => (await accountClient(forwarding.gateway).get(created.keyId)).body.spentUnits,
  };
}

/** Asserts that no header the provider received carries the client's gateway key. */
export function expectNoGatewayKey(headers: Record<string, string | string[] | undefined>, gatewayKey: string): void {
  expect(Object.values(headers).flat().filter((value) => value?.includes(gatewayKey))).toEqual([]);
}

/** A scripted stream of events each named by its type, as the Messages and Responses wires send them. */
export function namedEvents(events: readonly { type: string }[]): Script {
  return { events: events.map((data) => ({ event: data.type, data })) };
}

/**
 * A Messages stream that calls `get_weather` with `{"city":"Paris"}` in two `input_json_delta`
 * pieces, starting from `message` (its usage: 10 input tokens; 6 output tokens at the end).
 */
export function anthropicToolStream(message: object): ({ type: string } & Record<string, unknown>)[] {
  return [
    { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } },
    { type: "ping" },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city":' } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"Paris"}' } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 6 } },
    { type: "message_stop" },
  ];
}

/** A whole Chat Completions answer of the OpenAI-wire provider, with one choice. */
export function chatAnswer(message: object, finishReason: string, usage: object) {
  return { id: "chatcmpl-up", object: "chat.completion", created: 1_800_000_000, model: "gpt-up-2026", choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }], usage };
}
