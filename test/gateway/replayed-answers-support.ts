/**
 * What the replayed-answers suite (replayed-answers.test.ts) needs: one gateway in front of a
 * scripted upstream of every route kind, and each upstream wire spoken both ways — an answer
 * scripted on it (whole or streamed, with reasoning when the request asked for it), and a request
 * it received read back as a transcript, so a test can compare what reached a provider with what
 * the client sent, whatever the wires on either side.
 *
 * Models (1 credit per input token, 2 per output token, `maxOutputTokens` 2048), one per kind:
 *   openai → the `openai` kind · anthropic → `anthropic` · azure → `azure-openai`
 *   converse, invoke → `bedrock` (api converse, invoke-anthropic)
 *   vertex-claude, vertex-openai → `vertex` (publisher anthropic, openai-compatible)
 * and the built-in `tools-1`, which calls the first declared tool.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startScriptedAzure } from "@gateway-keys/testkit/scripted-azure";
import { converseStream, invokeStream, startScriptedBedrock } from "@gateway-keys/testkit/scripted-bedrock";
import { startScriptedGoogle, type ScriptedGoogle } from "@gateway-keys/testkit/scripted-google";
import { startScriptedProvider, type ReceivedRequest, type Script, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { CLAUDE, ENV_KEYS, NOVA, REGION } from "./bedrock-support";
import { PRICING, PROVIDER_KEY, PROVIDER_KEY_ENV, chatAnswer, namedEvents } from "./forwarding-support";
import { PROJECT } from "./vertex-support";

/** The most output tokens of every model here: room for a thinking budget. */
export const MAX_OUTPUT_TOKENS = 2048;

const AZURE_KEY_ENV = "GATEWAY_TEST_REPLAY_AZURE_KEY";
const AZURE_KEY = "azure-key-replay-0123456789abcdef";
const AWS_VARIABLES = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"];

/** The scripted upstreams, by the kind they stand for. */
export interface Upstreams {
  /** The `openai` and `anthropic` kinds' provider (one server: their paths differ). */
  direct: ScriptedProvider;
  azure: ScriptedProvider;
  bedrock: ScriptedProvider;
  vertexClaude: ScriptedProvider;
  vertexOpenAI: ScriptedProvider;
}

export interface EveryKind {
  upstreams: Upstreams;
  gateway: TestGateway;
}

/** Starts every upstream and one gateway in front of them (call at the top of the file). */
export function useEveryKind(): () => EveryKind {
  let state: (EveryKind & { google: ScriptedGoogle; dir: string }) | undefined;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    for (const name of AWS_VARIABLES) saved[name] = process.env[name];
    const dir = mkdtempSync(join(tmpdir(), "gateway-replay-"));
    Object.assign(process.env, {
      [PROVIDER_KEY_ENV]: PROVIDER_KEY,
      [AZURE_KEY_ENV]: AZURE_KEY,
      AWS_ACCESS_KEY_ID: ENV_KEYS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: ENV_KEYS.secretAccessKey,
      AWS_SESSION_TOKEN: ENV_KEYS.sessionToken,
      AWS_SHARED_CREDENTIALS_FILE: join(dir, "credentials"),
      AWS_CONFIG_FILE: join(dir, "config"),
    });
    delete process.env.AWS_PROFILE;
    const google = await startScriptedGoogle(dir);
    const account = google.serviceAccount("replay-caller", { lifetimeSeconds: 3600 });
    const upstreams: Upstreams = {
      direct: await startScriptedProvider(),
      azure: await startScriptedAzure({ apiKey: AZURE_KEY, deployments: ["gpt-replay"] }),
      bedrock: await startScriptedBedrock({ region: REGION, credentials: [ENV_KEYS] }),
      vertexClaude: await startScriptedProvider({ gate: google.vertexGate(PROJECT, "us-east5") }),
      vertexOpenAI: await startScriptedProvider({ gate: google.vertexGate(PROJECT, "global") }),
    };
    const vertex = (publisher: string, region: string, baseUrl: string) => ({ kind: "vertex", project: PROJECT, region, publisher, credentialsFile: account.keyFile, baseUrl, timeoutMs: 5000 });
    const bedrock = (api: string) => ({ kind: "bedrock", region: REGION, endpoint: upstreams.bedrock.origin, api, timeoutMs: 5000 });
    const chat = (id: string, provider: string, model: string) => ({ id, family: "chat", routes: [{ provider, model }], pricing: PRICING, maxOutputTokens: MAX_OUTPUT_TOKENS });
    const config = GatewayConfig.parse({
      providers: {
        openai: { kind: "openai", baseUrl: `${upstreams.direct.origin}/v1`, apiKeyEnv: PROVIDER_KEY_ENV, timeoutMs: 5000 },
        anthropic: { kind: "anthropic", baseUrl: upstreams.direct.origin, apiKeyEnv: PROVIDER_KEY_ENV, timeoutMs: 5000 },
        azure: { kind: "azure-openai", endpoint: upstreams.azure.origin, apiVersion: "2024-10-21", apiKeyEnv: AZURE_KEY_ENV, timeoutMs: 5000 },
        converse: bedrock("converse"),
        invoke: bedrock("invoke-anthropic"),
        "vertex-claude": vertex("anthropic", "us-east5", upstreams.vertexClaude.origin),
        "vertex-openai": vertex("openai-compatible", "global", upstreams.vertexOpenAI.origin),
      },
      models: [
        chat("openai", "openai", "gpt-up"),
        chat("anthropic", "anthropic", "claude-up"),
        chat("azure", "azure", "gpt-replay"),
        chat("converse", "converse", NOVA),
        chat("invoke", "invoke", CLAUDE),
        chat("vertex-claude", "vertex-claude", "claude-sonnet-4-5@20250929"),
        chat("vertex-openai", "vertex-openai", "google/gemini-2.5-flash"),
      ],
    });
    state = { upstreams, google, dir, gateway: await startTestGateway({ storage: "memory", config }) };
  });
  beforeEach(() => {
    for (const upstream of Object.values(state?.upstreams ?? {})) upstream.received.splice(0);
  });
  afterAll(async () => {
    await state?.gateway.stop();
    await Promise.all([...Object.values(state?.upstreams ?? {}).map((upstream) => upstream.close()), state?.google.close()]);
    if (state) rmSync(state.dir, { recursive: true, force: true });
    for (const name of [...AWS_VARIABLES, PROVIDER_KEY_ENV, AZURE_KEY_ENV]) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
  return () => {
    if (!state) throw new Error("useEveryKind: not started yet (call it at the top of the file)");
    return state;
  };
}

// --- Answers, as each upstream wire writes them -------------------------------------------------

/** One answer a provider gives: text, then maybe a call of `get_weather`; reasoning first when the request asked for it. */
export interface ScriptedAnswer {
  text: string;
  call?: { id: string; name: string; input: Record<string, unknown> };
}

/** The reasoning an upstream gives when asked: what it thought, and the opaque token that vouches for it. */
export const REASONING = { text: "The user wants the weather: call the tool.", signature: "sig-Zm9yIHRoZSByZXBsYXkgdGVzdA==" };

/** Whether a request asked for a stream: in its body, or (Bedrock, Vertex) in its operation. */
const streamed = (request: ReceivedRequest) => (request.body as { stream?: unknown }).stream === true || /stream/i.test(request.path);
/** Whether a request asked for reasoning (Messages `thinking`, Responses `reasoning`): the only requests an upstream reasons for. */
const askedReasoning = (request: ReceivedRequest) => {
  const body = request.body as { thinking?: { type?: string }; reasoning?: unknown };
  return body.thinking?.type === "enabled" || body.reasoning != null;
};
const USAGE = { input: 12, output: 5 };

function chatScript(answer: ScriptedAnswer, stream: boolean): Script {
  const call = answer.call && { id: answer.call.id, type: "function", function: { name: answer.call.name, arguments: JSON.stringify(answer.call.input) } };
  const finish = call ? "tool_calls" : "stop";
  const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
  if (!stream) return { json: chatAnswer({ role: "assistant", content: answer.text, ...(call && { tool_calls: [call] }) }, finish, usage) };
  const chunk = (delta: object, finishReason: string | null = null) => ({ id: "chatcmpl-up", object: "chat.completion.chunk", created: 1, model: "up", choices: [{ index: 0, delta, finish_reason: finishReason }] });
  return {
    events: [
      chunk({ role: "assistant", content: "" }),
      ...answer.text.split(" ").map((word, index) => chunk({ content: index === 0 ? word : ` ${word}` })),
      ...(call ? [chunk({ tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }), chunk({ tool_calls: [{ index: 0, function: { arguments: call.function.arguments } }] })] : []),
      chunk({}, finish),
      { id: "chatcmpl-up", object: "chat.completion.chunk", created: 1, model: "up", choices: [], usage },
      "[DONE]",
    ].map((data) => ({ data })),
  };
}

function responsesScript(answer: ScriptedAnswer, stream: boolean, reasoning: boolean): Script {
  const output = [
    ...(reasoning ? [{ type: "reasoning", id: "rs_up", summary: [{ type: "summary_text", text: REASONING.text }], encrypted_content: REASONING.signature }] : []),
    { type: "message", id: "msg_up", status: "completed", role: "assistant", content: [{ type: "output_text", text: answer.text, annotations: [], logprobs: [] }] },
    ...(answer.call ? [{ type: "function_call", id: "fc_up", call_id: answer.call.id, name: answer.call.name, arguments: JSON.stringify(answer.call.input), status: "completed" }] : []),
  ];
  const response = (status: string, items: object[]) => ({
    id: "resp_up",
    object: "response",
    created_at: 1_800_000_000,
    status,
    model: "gpt-up",
    output: items,
    ...(status === "completed" && { usage: { input_tokens: USAGE.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: USAGE.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: USAGE.input + USAGE.output } }),
  });
  if (!stream) return { json: response("completed", output) };
  let sequence = 0;
  const event = (type: string, fields: object) => ({ type, sequence_number: sequence++, ...fields });
  const events = [event("response.created", { response: response("in_progress", []) })];
  output.forEach((item, index) => {
    events.push(event("response.output_item.added", { output_index: index, item: item.type === "message" ? { ...item, status: "in_progress", content: [] } : item }));
    if (item.type === "message") {
      const part = { type: "output_text", text: answer.text, annotations: [], logprobs: [] };
      events.push(event("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { ...part, text: "" } }));
      events.push(event("response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta: answer.text, logprobs: [] }));
      events.push(event("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text: answer.text, logprobs: [] }));
      events.push(event("response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part }));
    }
    events.push(event("response.output_item.done", { output_index: index, item }));
  });
  events.push(event("response.completed", { response: response("completed", output) }));
  return namedEvents(events);
}

/** A Messages answer (Anthropic, Claude on Vertex, Claude through InvokeModel), as blocks or as its stream's events. */
function messagesAnswer(answer: ScriptedAnswer, reasoning: boolean) {
  const content = [
    ...(reasoning ? [{ type: "thinking", thinking: REASONING.text, signature: REASONING.signature }] : []),
    { type: "text", text: answer.text },
    ...(answer.call ? [{ type: "tool_use", ...answer.call }] : []),
  ];
  const message = { id: "msg_up", type: "message", role: "assistant", model: "claude-up", content, stop_reason: answer.call ? "tool_use" : "end_turn", stop_sequence: null };
  const events: ({ type: string } & Record<string, unknown>)[] = [{ type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { input_tokens: USAGE.input, output_tokens: 1 } } }];
  content.forEach((block, index) => {
    const delta =
      block.type === "thinking"
        ? [{ type: "thinking_delta", thinking: REASONING.text }, { type: "signature_delta", signature: REASONING.signature }]
        : block.type === "text"
          ? [{ type: "text_delta", text: answer.text }]
          : [{ type: "input_json_delta", partial_json: JSON.stringify(answer.call!.input) }];
    const start = block.type === "thinking" ? { type: "thinking", thinking: "", signature: "" } : block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
    events.push({ type: "content_block_start", index, content_block: start }, ...delta.map((piece) => ({ type: "content_block_delta", index, delta: piece })), { type: "content_block_stop", index });
  });
  events.push({ type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: USAGE.output } }, { type: "message_stop" });
  return { whole: { ...message, usage: { input_tokens: USAGE.input, output_tokens: USAGE.output } }, events };
}

function converseScript(answer: ScriptedAnswer, stream: boolean): Script {
  const usage = { inputTokens: USAGE.input, outputTokens: USAGE.output, totalTokens: USAGE.input + USAGE.output };
  const stopReason = answer.call ? "tool_use" : "end_turn";
  if (!stream) {
    const content = [{ text: answer.text }, ...(answer.call ? [{ toolUse: { toolUseId: answer.call.id, name: answer.call.name, input: answer.call.input } }] : [])];
    return { json: { output: { message: { role: "assistant", content } }, stopReason, usage } };
  }
  return converseStream([
    { type: "messageStart", payload: { role: "assistant" } },
    { type: "contentBlockDelta", payload: { contentBlockIndex: 0, delta: { text: answer.text } } },
    { type: "contentBlockStop", payload: { contentBlockIndex: 0 } },
    ...(answer.call
      ? [
          { type: "contentBlockStart", payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId: answer.call.id, name: answer.call.name } } } },
          { type: "contentBlockDelta", payload: { contentBlockIndex: 1, delta: { toolUse: { input: JSON.stringify(answer.call.input) } } } },
          { type: "contentBlockStop", payload: { contentBlockIndex: 1 } },
        ]
      : []),
    { type: "messageStop", payload: { stopReason } },
    { type: "metadata", payload: { usage, metrics: { latencyMs: 10 } } },
  ]);
}

/** How an upstream of each dialect answers a request: on the wire the request came on (its path says which). */
export const ANSWERS = {
  openai: (request: ReceivedRequest, answer: ScriptedAnswer): Script =>
    request.path.endsWith("/responses") ? responsesScript(answer, streamed(request), askedReasoning(request)) : chatScript(answer, streamed(request)),
  anthropic: (request: ReceivedRequest, answer: ScriptedAnswer): Script => {
    const { whole, events } = messagesAnswer(answer, askedReasoning(request));
    return streamed(request) ? namedEvents(events) : { json: whole };
  },
  bedrock: (request: ReceivedRequest, answer: ScriptedAnswer): Script => {
    if (/\/converse(-stream)?$/.test(request.path)) return converseScript(answer, streamed(request));
    const { whole, events } = messagesAnswer(answer, askedReasoning(request));
    return streamed(request) ? invokeStream(events) : { json: whole };
  },
} satisfies Record<string, (request: ReceivedRequest, answer: ScriptedAnswer) => Script>;
export type Dialect = keyof typeof ANSWERS;

// --- Transcripts: what a conversation says, whatever the wire --------------------------------

/**
 * A conversation as the lines a reader of it would see, in order, on any wire: who said what
 * text, each call (its id, name and input), each call's result, each piece of reasoning (its text
 * and signature). Two requests on different wires mean the same when their transcripts are equal.
 */
export type Transcript = string[];

type Json = Record<string, any>;
const said = (role: string, text: string): Transcript => (text === "" ? [] : [`${role}: ${text}`]);
const callLine = (id: string, name: string, input: unknown) => `call ${id} ${name} ${JSON.stringify(input)}`;
const resultLine = (id: string, text: string) => `result ${id}: ${text}`;
const reasoningLine = (text: string, signature: string) => `reasoning: ${text} [${signature}]`;
const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((part: Json) => (typeof part.text === "string" ? part.text : "")).join("") : "";

/** Chat Completions `messages` (system text left out: no replay carries it). */
export function chatTranscript(messages: Json[]): Transcript {
  return messages.flatMap((message) => {
    if (message.role === "tool") return [resultLine(message.tool_call_id, textOf(message.content))];
    if (message.role !== "user" && message.role !== "assistant") return [];
    const calls = (message.tool_calls ?? []).map((call: Json) => callLine(call.id, call.function.name, JSON.parse(call.function.arguments)));
    return [...said(message.role, textOf(message.content)), ...calls];
  });
}

/** Responses `input` items. */
export function responsesTranscript(input: Json[]): Transcript {
  return input.flatMap((item) => {
    switch (item.type ?? "message") {
      case "function_call":
        return [callLine(item.call_id, item.name, JSON.parse(item.arguments))];
      case "function_call_output":
        return [resultLine(item.call_id, textOf(item.output))];
      case "reasoning":
        return [reasoningLine(item.summary.map((part: Json) => part.text).join(""), item.encrypted_content)];
      default:
        return item.role === "user" || item.role === "assistant" ? said(item.role, textOf(item.content)) : [];
    }
  });
}

/** Messages `messages`. */
export function messagesTranscript(messages: Json[]): Transcript {
  return messages.flatMap((message) =>
    typeof message.content === "string"
      ? said(message.role, message.content)
      : message.content.flatMap((block: Json): Transcript => {
          switch (block.type) {
            case "text":
              return said(message.role, block.text);
            case "tool_use":
              return [callLine(block.id, block.name, block.input)];
            case "tool_result":
              return [resultLine(block.tool_use_id, textOf(block.content))];
            case "thinking":
              return [reasoningLine(block.thinking, block.signature)];
            default:
              return [`${block.type} block`];
          }
        }),
  );
}

/** Converse `messages`. */
function converseTranscript(messages: Json[]): Transcript {
  return messages.flatMap((message) =>
    message.content.flatMap((block: Json): Transcript => {
      if (block.text !== undefined) return said(message.role, block.text);
      if (block.toolUse) return [callLine(block.toolUse.toolUseId, block.toolUse.name, block.toolUse.input)];
      if (block.toolResult) return [resultLine(block.toolResult.toolUseId, textOf(block.toolResult.content))];
      return [`${Object.keys(block).join(",")} block`];
    }),
  );
}

/** What a request an upstream received says, read on the wire it came on. */
export function receivedTranscript(request: ReceivedRequest): Transcript {
  const body = request.body as Json;
  if (/\/converse(-stream)?$/.test(request.path)) return converseTranscript(body.messages);
  if (request.path.endsWith("/responses")) return responsesTranscript(typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input);
  if (request.path.endsWith("/chat/completions")) return chatTranscript(body.messages);
  return messagesTranscript(body.messages);
}
