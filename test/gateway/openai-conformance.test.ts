/**
 * Every OpenAI-wire answer the gateway builds — built-in models' and those translated from an
 * Anthropic-wire provider, whole answers, every streamed event, and error bodies — validates
 * against OpenAI's own OpenAPI document (test/support/openai-document.ts), read from the wire as a
 * client generated from that document would read it.
 */
import { createParser } from "eventsource-parser";
import { describeWith } from "../support/needs";
import { conformanceErrors, responseEventErrors, withoutBase64Embeddings } from "../support/openai-document";
import { clientsOf, useForwarding } from "./forwarding-support";

const forwarding = useForwarding();
const conformance = describeWith("openai-document");

async function send(path: string, secret: string | undefined, body?: unknown, method = "POST") {
  const response = await fetch(`${forwarding().gateway.baseUrl}${path}`, {
    method,
    headers: { ...(secret && { authorization: `Bearer ${secret}` }), ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text: await response.text() };
}

/** The `data` of every event of a stream, parsed; `[DONE]` left out. */
function eventsOf(text: string): unknown[] {
  const events: unknown[] = [];
  const parser = createParser({ onEvent: (event) => event.data !== "[DONE]" && events.push(JSON.parse(event.data)) });
  parser.feed(text);
  return events;
}

const anthropicAnswer = {
  id: "msg_up",
  type: "message",
  role: "assistant",
  model: "claude-up",
  content: [
    { type: "text", text: "Checking." },
    { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 6, cache_read_input_tokens: 4 },
};
const anthropicStream = [
  { type: "message_start", message: { ...anthropicAnswer, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Checking." } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"city":"Paris"}' } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 6 } },
  { type: "message_stop" },
];
const TOOLS_CHAT = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
const TOOLS_RESPONSES = [{ type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }];

beforeEach(() => {
  forwarding().provider.answer((request) => ((request.body as { stream?: boolean }).stream ? { events: anthropicStream.map((data) => ({ event: data.type, data })) } : { json: anthropicAnswer }));
});

conformance("answers the gateway builds validate against OpenAI's document", () => {
  const chatBodies: [string, object][] = [
    ["echo-1", { model: "echo-1", messages: [{ role: "user", content: "hello" }] }],
    ["echo-1 at its bound", { model: "echo-1", messages: [{ role: "user", content: "one two three" }], max_completion_tokens: 1 }],
    ["tools-1 calling a tool", { model: "tools-1", messages: [{ role: "user", content: "Paris" }], tools: TOOLS_CHAT }],
    ["a translated Anthropic answer", { model: "claude", messages: [{ role: "user", content: "Paris?" }], tools: TOOLS_CHAT }],
  ];

  test.each(chatBodies)("a chat completion (%s), whole and every chunk of its stream", async (_what, body) => {
    const { secret } = await clientsOf(forwarding());
    const whole = await send("/v1/chat/completions", secret, body);
    expect(whole.status).toBe(200);
    expect(conformanceErrors("CreateChatCompletionResponse", JSON.parse(whole.text))).toEqual([]);

    const streamed = await send("/v1/chat/completions", secret, { ...body, stream: true, stream_options: { include_usage: true } });
    const chunks = eventsOf(streamed.text);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.flatMap((chunk) => conformanceErrors("CreateChatCompletionStreamResponse", chunk))).toEqual([]);
  });

  const responseBodies: [string, object][] = [
    ["echo-1", { model: "echo-1", input: "hello", metadata: { run: "conformance" } }],
    ["echo-1 stopped at max_output_tokens", { model: "echo-1", input: "one two three", max_output_tokens: 1 }],
    ["tools-1 calling a tool", { model: "tools-1", input: "Paris", tools: TOOLS_RESPONSES }],
    ["a translated Anthropic answer", { model: "claude", input: "Paris?", tools: TOOLS_RESPONSES }],
  ];

  test.each(responseBodies)("a response (%s), whole and every event of its stream", async (_what, body) => {
    const { secret } = await clientsOf(forwarding());
    const whole = await send("/v1/responses", secret, body);
    expect(whole.status).toBe(200);
    expect(conformanceErrors("Response", JSON.parse(whole.text))).toEqual([]);

    const events = eventsOf((await send("/v1/responses", secret, { ...body, stream: true })).text);
    expect(events.length).toBeGreaterThan(4);
    expect(events.flatMap((event) => responseEventErrors(event as { type?: unknown }))).toEqual([]);
  });

  test("embeddings (float, and base64 but for the documented deviation), moderations and images", async () => {
    const { secret } = await clientsOf(forwarding());
    const floats = await send("/v1/embeddings", secret, { model: "hash-embed-1", input: ["alpha beta", "gamma"], encoding_format: "float" });
    expect(conformanceErrors("CreateEmbeddingResponse", JSON.parse(floats.text))).toEqual([]);
    const base64 = JSON.parse((await send("/v1/embeddings", secret, { model: "hash-embed-1", input: "alpha", encoding_format: "base64" })).text);
    expect(typeof base64.data[0].embedding).toBe("string");
    expect(conformanceErrors("CreateEmbeddingResponse", withoutBase64Embeddings(base64))).toEqual([]);

    const moderation = await send("/v1/moderations", secret, { input: ["I will stab the tyre", "lovely weather"] });
    expect(conformanceErrors("CreateModerationResponse", JSON.parse(moderation.text))).toEqual([]);
    const images = await send("/v1/images/generations", secret, { model: "pattern-image-1", prompt: "a red square", size: "256x256" });
    expect(conformanceErrors("ImagesResponse", JSON.parse(images.text))).toEqual([]);
  });

  test("a transcription, and the model list and one model", async () => {
    const { secret } = await clientsOf(forwarding());
    const speech = await fetch(`${forwarding().gateway.baseUrl}/v1/audio/speech`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "tone-speech-1", input: "Hello, world!", voice: "alloy" }),
    });
    const form = new FormData();
    form.append("model", "wav-transcribe-1");
    form.append("file", new Blob([await speech.arrayBuffer()], { type: "audio/wav" }), "speech.wav");
    const transcription = await fetch(`${forwarding().gateway.baseUrl}/v1/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${secret}` }, body: form });
    expect(conformanceErrors("CreateTranscriptionResponseJson", await transcription.json())).toEqual([]);

    expect(conformanceErrors("ListModelsResponse", JSON.parse((await send("/v1/models", undefined, undefined, "GET")).text))).toEqual([]);
    const one = await send("/v1/models/echo-1", undefined, undefined, "GET");
    expect(one.status).toBe(200);
    expect(conformanceErrors("Model", JSON.parse(one.text))).toEqual([]);
  });

  test.each([
    ["400 for a bad field", "/v1/chat/completions", { model: "echo-1", messages: [] }, 400],
    ["404 for an unknown model", "/v1/chat/completions", { model: "nope", messages: [{ role: "user", content: "x" }] }, 404],
    ["401 for a wrong key", "/v1/responses", { model: "echo-1", input: "x" }, 401],
    ["404 for an unknown model by id", "/v1/models/nope", undefined, 404],
  ])("an error body (%s)", async (_what, path, body, status) => {
    const { secret } = await clientsOf(forwarding());
    const answer = await send(path, status === 401 ? "gwk_wrong" : secret, body, body === undefined ? "GET" : "POST");
    expect(answer.status).toBe(status);
    expect(conformanceErrors("ErrorResponse", JSON.parse(answer.text))).toEqual([]);
  });

  test("a provider's refusal passed on, and a spend refusal, are error bodies of the document's shape", async () => {
    const limited = await clientsOf(forwarding(), { spendPolicy: { limitUnits: "0.000001" } });
    const spend = await send("/v1/chat/completions", limited.secret, { model: "echo-1", messages: [{ role: "user", content: "hello" }] });
    expect(spend.status).toBe(402);
    expect(conformanceErrors("ErrorResponse", JSON.parse(spend.text))).toEqual([]);

    const { secret } = await clientsOf(forwarding());
    forwarding().provider.answer(() => ({ status: 400, json: { type: "error", error: { type: "invalid_request_error", message: "bad tool schema" } } }));
    const refused = await send("/v1/chat/completions", secret, { model: "claude", messages: [{ role: "user", content: "x" }] });
    expect(refused.status).toBe(400);
    expect(conformanceErrors("ErrorResponse", JSON.parse(refused.text))).toEqual([]);
  });
});

conformance("the validator checks what it is given", () => {
  const chunk = { id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "x" }, finish_reason: null, logprobs: null }] };

  test("a broken answer fails: a wrong type, a missing required field", () => {
    const answer = { id: "c", object: "chat.completion", created: 1, model: "m", choices: [{ index: 0, message: { role: "assistant", content: 5, refusal: null }, finish_reason: "stop", logprobs: null }] };
    expect(conformanceErrors("CreateChatCompletionResponse", answer)).not.toEqual([]);
    const { param: _param, ...withoutParam } = { message: "m", type: "t", code: "c", param: null };
    expect(conformanceErrors("ErrorResponse", { error: withoutParam })).not.toEqual([]);
  });

  test("a schema with the OpenAPI 3.0 `nullable` keyword is checked, not skipped: null passes, a string fails", () => {
    expect(conformanceErrors("CreateChatCompletionStreamResponse", chunk)).toEqual([]);
    expect(conformanceErrors("CreateChatCompletionStreamResponse", { ...chunk, choices: [{ ...chunk.choices[0], logprobs: "none" }] })).not.toEqual([]);
  });
});
