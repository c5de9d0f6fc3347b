/**
 * The gateway's own answers are always accepted back. Multi-turn clients send the previous answer
 * back as the next request's history — Chat Completions the assistant message (its tool calls
 * answered by tool messages), Responses `input.concat(response.output)` (the OpenAI Agents SDK,
 * OpenAI's docs), Messages the assistant's content blocks (thinking blocks with their signature,
 * tool uses answered by tool results). For every route kind and every client wire, whole and
 * streamed (assembled by the official clients' own stream helpers), a three-turn conversation that
 * sends each answer back as it came gets every turn answered; nothing of it is dropped or named;
 * and what reached the provider says the same as what the client sent — the replayed text, calls,
 * results and reasoning, translated to the provider's wire or relayed as sent.
 *
 * A new route kind is one line of KINDS (and its upstream in replayed-answers-support.ts); a new
 * client wire, one entry of WIRES.
 */
import type { ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { clientsOf } from "./forwarding-support";
import { settledRows } from "./model-api-sdks-support";
import {
  ANSWERS,
  chatTranscript,
  MAX_OUTPUT_TOKENS,
  messagesTranscript,
  REASONING,
  receivedTranscript,
  responsesTranscript,
  useEveryKind,
  type Dialect,
  type ScriptedAnswer,
  type Transcript,
  type Upstreams,
} from "./replayed-answers-support";

const every = useEveryKind();

type Json = Record<string, any>;
type Clients = Awaited<ReturnType<typeof clientsOf>>;
type WireName = "Chat Completions" | "Responses" | "Messages";

interface RouteKind {
  kind: string;
  /** The gateway's model served by this kind. */
  model: string;
  /** Where its requests land, and the wire family it answers on; none for a built-in model. */
  upstream?: { of: (upstreams: Upstreams) => ScriptedProvider; dialect: Dialect; callId: string };
  /** The client wires its provider speaks: relayed as sent (reasoning included); the others are translated. */
  relays: WireName[];
}

const KINDS: RouteKind[] = [
  { kind: "built-in", model: "tools-1", relays: [] },
  { kind: "openai", model: "openai", upstream: { of: (up) => up.direct, dialect: "openai", callId: "call_up1" }, relays: ["Chat Completions", "Responses"] },
  { kind: "anthropic", model: "anthropic", upstream: { of: (up) => up.direct, dialect: "anthropic", callId: "toolu_up1" }, relays: ["Messages"] },
  { kind: "azure-openai", model: "azure", upstream: { of: (up) => up.azure, dialect: "openai", callId: "call_up1" }, relays: ["Chat Completions", "Responses"] },
  { kind: "bedrock converse", model: "converse", upstream: { of: (up) => up.bedrock, dialect: "bedrock", callId: "tooluse_up1" }, relays: [] },
  { kind: "bedrock invoke", model: "invoke", upstream: { of: (up) => up.bedrock, dialect: "bedrock", callId: "toolu_up1" }, relays: ["Messages"] },
  { kind: "vertex claude", model: "vertex-claude", upstream: { of: (up) => up.vertexClaude, dialect: "anthropic", callId: "toolu_up1" }, relays: ["Messages"] },
  { kind: "vertex openai-compatible", model: "vertex-openai", upstream: { of: (up) => up.vertexOpenAI, dialect: "openai", callId: "call_up1" }, relays: ["Chat Completions"] },
];

interface AskOptions {
  stream: boolean;
  /** Ask for reasoning (only where the request is relayed: a translation refuses it by name). */
  reasoning: boolean;
}

/** A client wire as its clients hold a conversation: items of history, each answer's items appended as they came. */
interface ClientWire {
  name: WireName;
  /** Whether the wire carries reasoning back (Responses' reasoning items, Messages' thinking blocks). */
  reasons: boolean;
  opening: Json[];
  /** One turn through the official client — `create`, or its stream helper's final answer — as the items a client sends back. */
  ask(client: Clients, model: string, history: Json[], options: AskOptions): Promise<Json[]>;
  /** What the client adds after an answer: a result for each call, or the user's next words. */
  followUp(answer: Json[]): Json[];
  transcript(items: Json[]): Transcript;
}

const CITY = { type: "object", properties: { city: { type: "string" } } };
const RESULT = "sunny";
const THANKS = "Thanks.";

const WIRES: ClientWire[] = [
  {
    name: "Chat Completions",
    reasons: false,
    opening: [{ role: "user", content: "Weather in Paris?" }],
    async ask(client, model, messages, { stream }) {
      const params = { model, messages, tools: [{ type: "function", function: { name: "get_weather", parameters: CITY } }] } as never;
      const completion = stream ? await client.openai.chat.completions.stream({ ...(params as object), stream_options: { include_usage: true } } as never).finalChatCompletion() : await client.openai.chat.completions.create(params);
      return [completion.choices[0]!.message];
    },
    followUp: ([message]) => (message!.tool_calls?.length ? message!.tool_calls.map((call: Json) => ({ role: "tool", tool_call_id: call.id, content: RESULT })) : [{ role: "user", content: THANKS }]),
    transcript: chatTranscript,
  },
  {
    name: "Responses",
    reasons: true,
    opening: [{ role: "user", content: "Weather in Paris?" }],
    async ask(client, model, input, { stream, reasoning }) {
      const params = {
        model,
        input,
        tools: [{ type: "function", name: "get_weather", parameters: CITY, strict: false }],
        ...(reasoning && { reasoning: { effort: "low", summary: "auto" }, include: ["reasoning.encrypted_content"] }),
      } as never;
      const response = stream ? await client.openai.responses.stream(params).finalResponse() : await client.openai.responses.create(params);
      return (response as Json).output;
    },
    followUp: (output) => {
      const calls = output.filter((item) => item.type === "function_call");
      return calls.length ? calls.map((call) => ({ type: "function_call_output", call_id: call.call_id, output: RESULT })) : [{ role: "user", content: THANKS }];
    },
    transcript: responsesTranscript,
  },
  {
    name: "Messages",
    reasons: true,
    opening: [{ role: "user", content: "Weather in Paris?" }],
    async ask(client, model, messages, { stream, reasoning }) {
      const params = {
        model,
        max_tokens: MAX_OUTPUT_TOKENS,
        messages,
        tools: [{ name: "get_weather", input_schema: CITY }],
        ...(reasoning && { thinking: { type: "enabled", budget_tokens: 1024 } }),
      } as never;
      const message = stream ? await client.anthropic.messages.stream(params).finalMessage() : await client.anthropic.messages.create(params);
      return [{ role: "assistant", content: (message as Json).content }];
    },
    followUp: ([message]) => {
      const calls = message!.content.filter((block: Json) => block.type === "tool_use");
      return [{ role: "user", content: calls.length ? calls.map((call: Json) => ({ type: "tool_result", tool_use_id: call.id, content: RESULT })) : THANKS }];
    },
    transcript: messagesTranscript,
  },
];

/** What the upstream answers each turn: text and a call, then text (turn 2 answers the call's result), then text. */
const answersOf = (callId: string): ScriptedAnswer[] => [
  { text: "Let me look.", call: { id: callId, name: "get_weather", input: { city: "Paris" } } },
  { text: "Sunny in Paris." },
  { text: "You are welcome." },
];

/** Three turns, each answer sent back as it came; the history each turn sent, and each answer. */
async function converse(wire: ClientWire, client: Clients, model: string, options: AskOptions) {
  let history = wire.opening;
  const sent: Json[][] = [];
  const answers: Json[][] = [];
  for (let turn = 0; turn < 3; turn++) {
    sent.push(history);
    const answer = await wire.ask(client, model, history, options);
    answers.push(answer);
    history = [...history, ...answer, ...wire.followUp(answer)];
  }
  return { sent, answers };
}

const CASES = KINDS.flatMap((route) => WIRES.flatMap((wire) => [false, true].map((stream) => ({ route, wire, stream, mode: stream ? "streamed" : "whole" }))));

describe.each(CASES)("$wire.name client, $route.kind route, $mode answers", ({ route, wire, stream }) => {
  test("every answer sent back is accepted, nothing is dropped, and the provider gets the replayed turns meaning the same", async () => {
    const { gateway, upstreams } = every();
    const client = await clientsOf({ provider: upstreams.direct, gateway });
    const relayed = route.relays.includes(wire.name);
    const reasoning = relayed && wire.reasons;
    const upstream = route.upstream && { ...route.upstream, provider: route.upstream.of(upstreams) };
    if (upstream) {
      const scripted = answersOf(upstream.callId);
      upstream.provider.answer((request) => ANSWERS[upstream.dialect](request, scripted[upstream.provider.received.length - 1]!));
    }

    const { sent, answers } = await converse(wire, client, route.model, { stream, reasoning });

    // Each turn was answered (a refusal would have thrown), and the first answer is one to replay:
    // reasoning where asked, text where the model says some, a call.
    const call = (id: string) => `call ${id} get_weather {"city":"Paris"}`;
    const thought = reasoning ? [`reasoning: ${REASONING.text} [${REASONING.signature}]`] : [];
    if (upstream) {
      expect(wire.transcript(answers[0]!)).toEqual([...thought, "assistant: Let me look.", call(upstream.callId)]);
      expect(wire.transcript(answers[1]!)).toEqual([...thought, "assistant: Sunny in Paris."]);
      // The provider got each turn's whole history, replayed answers included, saying the same.
      expect(upstream.provider.received).toHaveLength(3);
      upstream.provider.received.forEach((request, turn) => expect(receivedTranscript(request)).toEqual(wire.transcript(sent[turn]!)));
      expect(wire.transcript(sent[2]!)).toEqual(expect.arrayContaining(["assistant: Let me look.", call(upstream.callId), `result ${upstream.callId}: ${RESULT}`, "assistant: Sunny in Paris."]));
    } else {
      // tools-1 calls the tool, then answers with its result.
      expect(wire.transcript(answers[0]!)).toEqual([expect.stringMatching(/^call \S+ get_weather /)]);
      expect(wire.transcript(answers[1]!)).toEqual([`assistant: ${RESULT}`]);
    }
    // Nothing the answers carried was dropped or named on the way back.
    const rows = await settledRows(gateway, client.keyId, 3);
    expect(rows.map((row) => [row.status, row.droppedFields])).toEqual([
      [200, []],
      [200, []],
      [200, []],
    ]);
  });
});
