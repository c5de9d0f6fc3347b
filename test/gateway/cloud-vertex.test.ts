/**
 * Google Vertex AI as a route like any other. A scripted Google (testkit/scripted-google.ts)
 * issues access tokens for service accounts whose key files the test writes (an RSA key pair made
 * here; the token endpoint verifies each JWT assertion's signature with the public key), and a
 * scripted Vertex refuses a token it did not issue or that has expired, a path that is not a
 * Vertex method, a Claude body without `anthropic_version`. The official clients reach Claude
 * (rawPredict / streamRawPredict, the Messages wire) and Gemini (the OpenAI-compatible endpoint)
 * on all three wires — same wire relayed, other wire translated — whole, streamed, with tools,
 * images and errors, charged from Vertex's usage.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { join } from "node:path";
import { GatewayConfig, startGateway } from "@gateway-keys/gateway";
import type { ScriptedGoogle, ServiceAccount } from "@gateway-keys/testkit/scripted-google";
import type { ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { anthropicToolStream, chatAnswer, clientsOf, expectNoGatewayKey, namedEvents, PRICING } from "./forwarding-support";
import { bearer, CHAT_WEATHER_TOOL, CLAUDE_PATH, claudeMessage, claudeTextStream, GEMINI_PATH, PROJECT, useVertex, WEATHER_TOOL } from "./vertex-support";

const vertex = useVertex();
let dir: string;
let google: ScriptedGoogle;
let claudeVertex: ScriptedProvider;
let geminiVertex: ScriptedProvider;
let gateway: TestGateway;
let claudeAccount: ServiceAccount;
let geminiAccount: ServiceAccount;
beforeAll(() => void ({ dir, google, claudeVertex, geminiVertex, gateway, claudeAccount, geminiAccount } = vertex()));

const clients = () => clientsOf({ provider: claudeVertex, gateway });

describe("Messages to Claude on Vertex (relayed through rawPredict)", () => {
  test("a whole answer: rawPredict, the model in the path, anthropic_version in the body, a service account's token, the client's beta header", async () => {
    const client = await clients();
    claudeVertex.answer(() => ({ json: claudeMessage([{ type: "text", text: "Hello from Vertex" }], "end_turn") }));
    const message = await client.anthropic.messages.create(
      { model: "claude", max_tokens: 50, messages: [{ role: "user", content: "hi" }], stop_sequences: ["END"] },
      { headers: { "anthropic-beta": "context-1m-2025-08-07" } },
    );

    const received = claudeVertex.received[0]!;
    expect(received.path).toBe(`${CLAUDE_PATH}:rawPredict`);
    expect(received.body).toEqual({ anthropic_version: "vertex-2023-10-16", max_tokens: 50, messages: [{ role: "user", content: "hi" }], stop_sequences: ["END"] });
    expect(received.headers["anthropic-beta"]).toBe("context-1m-2025-08-07");
    expect(received.headers["x-api-key"]).toBeUndefined();
    expect(google.issued.find((token) => token.token === bearer(received.headers))?.email).toBe(claudeAccount.email);
    expectNoGatewayKey(received.headers, client.secret);
    expect(message.content).toEqual([{ type: "text", text: "Hello from Vertex" }]);
    expect(await client.spentUnits()).toBe("17");
  });

  test("a stream: streamRawPredict, Anthropic's events through the SDK's parser, charged from message_start and message_delta", async () => {
    const client = await clients();
    claudeVertex.answer(() => namedEvents(claudeTextStream(["Hel", "lo"])));
    const final = await client.anthropic.messages.stream({ model: "claude", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }).finalMessage();

    expect(claudeVertex.received[0]!.path).toBe(`${CLAUDE_PATH}:streamRawPredict`);
    expect(claudeVertex.received[0]!.body).toMatchObject({ anthropic_version: "vertex-2023-10-16", stream: true });
    expect(final.content).toMatchObject([{ type: "text", text: "Hello" }]);
    expect(await client.spentUnits()).toBe("14");
  });

  test("a tool call round trip with an image block, streamed: input_json_delta pieces, then the tool_result goes back", async () => {
    const client = await clients();
    claudeVertex.answer(() => namedEvents(anthropicToolStream(claudeMessage([], "tool_use"))));
    const user = { role: "user" as const, content: [{ type: "text" as const, text: "Weather where this is?" }, { type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data: "iVBORw0KGgo=" } }] };
    const first = await client.anthropic.messages.stream({ model: "claude", max_tokens: 50, tools: [WEATHER_TOOL], messages: [user] }).finalMessage();
    expect(first.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }]);

    claudeVertex.answer(() => ({ json: claudeMessage([{ type: "text", text: "Sunny." }], "end_turn") }));
    const messages = [user, { role: "assistant" as const, content: first.content }, { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_1", content: "sunny" }] }];
    await client.anthropic.messages.create({ model: "claude", max_tokens: 50, tools: [WEATHER_TOOL], messages });
    expect((claudeVertex.received[1]!.body as { messages: unknown }).messages).toEqual(JSON.parse(JSON.stringify(messages)));
  });
});

describe("Chat Completions and Responses to Claude on Vertex (translated to Messages)", () => {
  test("Chat Completions with an image and a tool: written as Messages for rawPredict; tool_use comes back as tool_calls", async () => {
    const client = await clients();
    claudeVertex.answer(() => ({ json: claudeMessage([{ type: "tool_use", id: "toolu_7", name: "get_weather", input: { city: "Rome" } }], "tool_use", { input_tokens: 11, output_tokens: 5 }) }));
    const completion = await client.openai.chat.completions.create({
      model: "claude",
      max_completion_tokens: 40,
      tools: [CHAT_WEATHER_TOOL],
      messages: [{ role: "user", content: [{ type: "text", text: "Weather here?" }, { type: "image_url", image_url: { url: "https://example.test/rome.png" } }] }],
    });

    const received = claudeVertex.received[0]!;
    expect(received.path).toBe(`${CLAUDE_PATH}:rawPredict`);
    expect(received.body).toMatchObject({
      anthropic_version: "vertex-2023-10-16",
      max_tokens: 40,
      messages: [{ role: "user", content: [{ type: "text", text: "Weather here?" }, { type: "image", source: { type: "url", url: "https://example.test/rome.png" } }] }],
      tools: [{ name: "get_weather", input_schema: WEATHER_TOOL.input_schema }],
    });
    expect(received.body).not.toHaveProperty("model");
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(completion.choices[0]!.message.tool_calls).toEqual([{ id: "toolu_7", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } }]);
    expect(await client.spentUnits()).toBe("21");
  });

  test("a Chat Completions stream from streamRawPredict, read by the SDK's parser", async () => {
    const client = await clients();
    claudeVertex.answer(() => namedEvents(claudeTextStream(["Ciao", " mondo"])));
    const stream = await client.openai.chat.completions.create({ model: "claude", max_completion_tokens: 40, messages: [{ role: "user", content: "hi" }], stream: true });
    let text = "";
    for await (const part of stream) text += part.choices[0]?.delta.content ?? "";

    expect(claudeVertex.received[0]!.path).toBe(`${CLAUDE_PATH}:streamRawPredict`);
    expect(text).toBe("Ciao mondo");
    expect(await client.spentUnits()).toBe("14");
  });

  test("Responses, whole and streamed, reach Claude through rawPredict and streamRawPredict", async () => {
    const client = await clients();
    claudeVertex.answer(() => ({ json: claudeMessage([{ type: "text", text: "Salut" }], "end_turn") }));
    const whole = await client.openai.responses.create({ model: "claude", input: "hi", max_output_tokens: 30 });
    claudeVertex.answer(() => namedEvents(claudeTextStream(["Sa", "lut"])));
    const stream = await client.openai.responses.create({ model: "claude", input: "hi", max_output_tokens: 30, stream: true });
    let streamed = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") streamed += event.delta;

    expect(claudeVertex.received.map((request) => request.path)).toEqual([`${CLAUDE_PATH}:rawPredict`, `${CLAUDE_PATH}:streamRawPredict`]);
    expect([whole.output_text, streamed]).toEqual(["Salut", "Salut"]);
    expect(await client.spentUnits()).toBe(String(9 + 8 + 8 + 6));
  });
});

describe("Responses to Claude on Vertex: tools, images, errors", () => {
  test("an input_image and a function tool: streamed tool_use becomes function_call events, its output goes back as a tool_result", async () => {
    const client = await clients();
    claudeVertex.answer(() => namedEvents(anthropicToolStream(claudeMessage([], "tool_use"))));
    const tools = [{ type: "function" as const, name: "get_weather", parameters: WEATHER_TOOL.input_schema, strict: false }];
    const user = { role: "user" as const, content: [{ type: "input_text" as const, text: "Weather here?" }, { type: "input_image" as const, image_url: "https://example.test/paris.png", detail: "auto" as const }] };
    const final = await client.openai.responses.stream({ model: "claude", input: [user], tools, max_output_tokens: 40 }).finalResponse();
    expect(final.output).toMatchObject([{ type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' }]);
    expect(claudeVertex.received[0]!.path).toBe(`${CLAUDE_PATH}:streamRawPredict`);
    expect(claudeVertex.received[0]!.body).toMatchObject({ messages: [{ role: "user", content: [{ type: "text", text: "Weather here?" }, { type: "image", source: { type: "url", url: "https://example.test/paris.png" } }] }] });

    claudeVertex.answer(() => ({ json: claudeMessage([{ type: "text", text: "Sunny." }], "end_turn") }));
    const second = await client.openai.responses.create({
      model: "claude",
      input: [user, { type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' }, { type: "function_call_output", call_id: "toolu_1", output: "sunny" }],
      tools,
      max_output_tokens: 40,
    });
    expect(second.output_text).toBe("Sunny.");
    expect((claudeVertex.received[1]!.body as { messages: unknown[] }).messages.slice(1)).toEqual([
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "sunny" }] }] },
    ]);
  });

  test("Claude's 400 through Vertex reaches Responses as a 400 with its message", async () => {
    const client = await clients();
    claudeVertex.answer(() => ({ status: 400, json: { type: "error", error: { type: "invalid_request_error", message: "max_tokens: too large" } } }));
    const failure = await client.openai.responses.create({ model: "claude", input: "x" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as Error).message).toBe("400 max_tokens: too large");
  });
});

describe("Gemini on Vertex's OpenAI-compatible endpoint", () => {
  const geminiAnswer = (message: object, finish: string) => chatAnswer(message, finish, { prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 });

  test("Chat Completions relayed: the endpoint's path in the global location, the model as google/…, the token of Gemini's account", async () => {
    const client = await clients();
    geminiVertex.answer(() => ({ json: geminiAnswer({ role: "assistant", content: "Hi from Gemini" }, "stop") }));
    const { data, response } = await client.openai.chat.completions.create({ model: "gemini", messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] }] }).withResponse();

    const received = geminiVertex.received[0]!;
    expect(received.path).toBe(GEMINI_PATH);
    expect(received.body).toMatchObject({ model: "google/gemini-2.5-flash", messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "image_url" }] }] });
    expect(google.issued.find((token) => token.token === bearer(received.headers))?.email).toBe(geminiAccount.email);
    expect(data.choices[0]!.message.content).toBe("Hi from Gemini");
    expect(response.headers.get("x-gateway-cost-units")).toBe("12");
  });

  test("a streamed tool call relayed, read by the SDK's parser", async () => {
    const client = await clients();
    const piece = (delta: object, finish: string | null = null) => ({ id: "g1", object: "chat.completion.chunk", created: 1, model: "google/gemini-2.5-flash", choices: [{ index: 0, delta, finish_reason: finish }] });
    geminiVertex.answer(() => ({
      events: [
        piece({ role: "assistant", tool_calls: [{ index: 0, id: "function-call-1", type: "function", function: { name: "get_weather", arguments: '{"city":"Lima"}' } }] }),
        piece({}, "tool_calls"),
        { id: "g1", object: "chat.completion.chunk", created: 1, model: "google/gemini-2.5-flash", choices: [], usage: { prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 } },
        "[DONE]",
      ].map((data) => ({ data })),
    }));
    const stream = await client.openai.chat.completions.create({ model: "gemini", messages: [{ role: "user", content: "weather?" }], tools: [CHAT_WEATHER_TOOL], stream: true });
    const calls: string[] = [];
    for await (const part of stream) for (const call of part.choices[0]?.delta.tool_calls ?? []) calls.push(call.function?.arguments ?? "");

    expect(calls.join("")).toBe('{"city":"Lima"}');
    expect(await client.spentUnits()).toBe("12");
  });

  test("Responses are translated to Chat Completions (the endpoint has no Responses API)", async () => {
    const client = await clients();
    geminiVertex.answer(() => ({ json: geminiAnswer({ role: "assistant", content: "Translated" }, "stop") }));
    const answer = await client.openai.responses.create({ model: "gemini", input: "hi", max_output_tokens: 20 });

    expect(geminiVertex.received[0]!.path).toBe(GEMINI_PATH);
    expect(geminiVertex.received[0]!.body).toMatchObject({ model: "google/gemini-2.5-flash", messages: [{ role: "user", content: "hi" }], max_completion_tokens: 20 });
    expect(answer.output_text).toBe("Translated");
  });

  test("a Responses stream with an image, translated from the endpoint's chunks", async () => {
    const client = await clients();
    const piece = (delta: object, finish: string | null = null) => ({ id: "g2", object: "chat.completion.chunk", created: 1, model: "google/gemini-2.5-flash", choices: [{ index: 0, delta, finish_reason: finish }] });
    const usage = { id: "g2", object: "chat.completion.chunk", created: 1, model: "google/gemini-2.5-flash", choices: [], usage: { prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 } };
    geminiVertex.answer(() => ({ events: [piece({ role: "assistant", content: "A " }), piece({ content: "cat." }), piece({}, "stop"), usage, "[DONE]"].map((data) => ({ data })) }));
    const input = [{ role: "user" as const, content: [{ type: "input_text" as const, text: "What is it?" }, { type: "input_image" as const, image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" as const }] }];
    const final = await client.openai.responses.stream({ model: "gemini", input, max_output_tokens: 20 }).finalResponse();

    expect(geminiVertex.received[0]!.path).toBe(GEMINI_PATH);
    expect(geminiVertex.received[0]!.body).toMatchObject({ stream: true, messages: [{ role: "user", content: [{ type: "text", text: "What is it?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] }] });
    expect(final.output_text).toBe("A cat.");
    expect(await client.spentUnits()).toBe("12");
  });

  test("a Messages stream, translated from the endpoint's chunks", async () => {
    const client = await clients();
    const piece = (delta: object, finish: string | null = null) => ({ id: "g3", object: "chat.completion.chunk", created: 1, model: "google/gemini-2.5-flash", choices: [{ index: 0, delta, finish_reason: finish }] });
    geminiVertex.answer(() => ({ events: [piece({ role: "assistant", content: "Hola" }), piece({}, "stop"), "[DONE]"].map((data) => ({ data })) }));
    const content = [{ type: "text" as const, text: "hi" }, { type: "image" as const, source: { type: "url" as const, url: "https://example.test/cat.png" } }];
    const final = await client.anthropic.messages.stream({ model: "gemini", max_tokens: 20, messages: [{ role: "user", content }] }).finalMessage();
    expect(final.content).toMatchObject([{ type: "text", text: "Hola" }]);
    expect(geminiVertex.received[0]!.body).toMatchObject({ stream: true, messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "image_url", image_url: { url: "https://example.test/cat.png" } }] }] });
  });

  test("Vertex's own 400 reaches Chat Completions and Responses with Google's message", async () => {
    const client = await clients();
    const message = "Invalid value at 'tools[0].function_declarations[0].parameters' (type.googleapis.com/google.cloud.aiplatform.v1.Schema)";
    geminiVertex.answer(() => ({ status: 400, json: { error: { code: 400, message, status: "INVALID_ARGUMENT" } } }));
    const chatFailure = await client.openai.chat.completions.create({ model: "gemini", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    const responsesFailure = await client.openai.responses.create({ model: "gemini", input: "x" }).catch((error: unknown) => error);
    for (const failure of [chatFailure, responsesFailure]) {
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      expect((failure as Error).message).toBe(`400 ${message}`);
      // Google's status is the error's code, in OpenAI's terms.
      expect(failure).toMatchObject({ code: "INVALID_ARGUMENT" });
    }
  });

  test("Responses with a function tool: the endpoint's tool_calls come back as a function_call item", async () => {
    const client = await clients();
    geminiVertex.answer(() => ({ json: geminiAnswer({ role: "assistant", content: null, tool_calls: [{ id: "function-call-2", type: "function", function: { name: "get_weather", arguments: '{"city":"Quito"}' } }] }, "tool_calls") }));
    const answer = await client.openai.responses.create({ model: "gemini", input: "weather in Quito?", tools: [{ type: "function", name: "get_weather", parameters: WEATHER_TOOL.input_schema, strict: false }], max_output_tokens: 20 });

    expect(geminiVertex.received[0]!.body).toMatchObject({ tools: [{ type: "function", function: { name: "get_weather", parameters: WEATHER_TOOL.input_schema } }] });
    expect(answer.output).toMatchObject([{ type: "function_call", call_id: "function-call-2", name: "get_weather", arguments: '{"city":"Quito"}' }]);
  });

  test("Messages are translated to Chat Completions, a tool result included", async () => {
    const client = await clients();
    geminiVertex.answer(() => ({ json: geminiAnswer({ role: "assistant", content: "Warm." }, "stop") }));
    const message = await client.anthropic.messages.create({
      model: "gemini",
      max_tokens: 20,
      tools: [WEATHER_TOOL],
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: [{ type: "tool_use", id: "call_a", name: "get_weather", input: { city: "Lima" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_a", content: "warm" }] },
      ],
    });

    expect((geminiVertex.received[0]!.body as { messages: unknown[] }).messages.slice(1)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Lima"}' } }] },
      { role: "tool", tool_call_id: "call_a", content: "warm" },
    ]);
    expect(message.content).toMatchObject([{ type: "text", text: "Warm." }]);
  });
});

describe("Vertex's errors and tokens", () => {
  test("a client that aborts a streamRawPredict stream closes the gateway's request to Vertex at once", async () => {
    const client = await clients();
    const endless = claudeTextStream(Array.from({ length: 500 }, (_, index) => `t${index} `)).slice(0, -2);
    claudeVertex.answer(() => ({ events: endless.map((data) => ({ event: data.type, data })), gapMs: 20, end: false }));
    const abort = new AbortController();
    const stream = client.anthropic.messages.stream({ model: "claude", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }, { signal: abort.signal });
    let deltas = 0;
    await (async () => {
      for await (const event of stream) if (event.type === "content_block_delta" && ++deltas === 3) abort.abort();
    })().catch(() => undefined);
    const abortedAt = Date.now();
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("Vertex's request was not closed within 2 s")), 2000).unref());
    await Promise.race([claudeVertex.received[0]!.closed, timeout]);
    expect(deltas).toBe(3);
    expect(Date.now() - abortedAt).toBeLessThan(1000);
  });

  test("Claude's 400 through Vertex reaches Messages as its invalid_request_error and Chat Completions as a 400", async () => {
    const client = await clients();
    const refusal = { type: "error", error: { type: "invalid_request_error", message: "messages.0.content: image too large" } };
    claudeVertex.answer(() => ({ status: 400, json: refusal }));
    const messagesFailure = await client.anthropic.messages.create({ model: "claude", max_tokens: 10, messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    const chatFailure = await client.openai.chat.completions.create({ model: "claude", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);

    expect(messagesFailure).toBeInstanceOf(Anthropic.BadRequestError);
    expect((messagesFailure as InstanceType<typeof Anthropic.APIError>).error).toMatchObject(refusal);
    expect(chatFailure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(chatFailure).toMatchObject({ status: 400, message: "400 messages.0.content: image too large" });
    expect(await client.spentUnits()).toBe("0");
  });

  test("Vertex's 429 reaches the client as a 429 with its Retry-After", async () => {
    const client = await clients();
    geminiVertex.answer(() => ({ status: 429, json: { error: { code: 429, message: "Resource exhausted. Please try again later.", status: "RESOURCE_EXHAUSTED" } }, headers: { "retry-after": "3" } }));
    const failure = await client.anthropic.messages.create({ model: "gemini", max_tokens: 10, messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.RateLimitError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).headers?.get("retry-after")).toBe("3");
  });

  test("a token is cached while it is valid, and an expired one is never sent: the gateway gets a fresh one", async () => {
    const client = await clients();
    claudeVertex.answer(() => ({ json: claudeMessage([{ type: "text", text: "ok" }], "end_turn") }));
    geminiVertex.answer(() => ({ json: chatAnswer({ role: "assistant", content: "ok" }, "stop", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }) }));
    const claude = () => client.anthropic.messages.create({ model: "claude", max_tokens: 5, messages: [{ role: "user", content: "x" }] });
    await claude();
    const claudeTokens = google.issued.filter((token) => token.email === claudeAccount.email).length;
    for (let index = 0; index < 3; index++) await claude();
    // One hour tokens: the next three requests used the one already fetched.
    expect(claudeTokens).toBeGreaterThan(0);
    expect(google.issued.filter((token) => token.email === claudeAccount.email).length).toBe(claudeTokens);
    expect(new Set(claudeVertex.received.map((request) => bearer(request.headers))).size).toBe(1);

    await client.openai.chat.completions.create({ model: "gemini", messages: [{ role: "user", content: "x" }] });
    const first = bearer(geminiVertex.received.at(-1)!.headers)!;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(google.valid(first)).toBe(false);
    await client.openai.chat.completions.create({ model: "gemini", messages: [{ role: "user", content: "x" }] });
    const second = bearer(geminiVertex.received.at(-1)!.headers)!;
    expect(second).not.toBe(first);
    expect(google.valid(second)).toBe(true);
  });

  test("a token Vertex refuses before it expires (revoked) is dropped: that request fails as the gateway's own credentials, the next gets a fresh token", async () => {
    const client = await clients();
    claudeVertex.answer(() => ({ json: claudeMessage([{ type: "text", text: "ok" }], "end_turn") }));
    const claude = () => client.anthropic.messages.create({ model: "claude", max_tokens: 5, messages: [{ role: "user", content: "x" }] });
    await claude();
    const revoked = bearer(claudeVertex.received.at(-1)!.headers)!;
    google.revoke(revoked);
    const failure = await claude().catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 502 });
    expect(bearer(claudeVertex.received.at(-1)!.headers)).toBe(revoked);
    expect((await claude()).content).toEqual([{ type: "text", text: "ok" }]);
    const fresh = bearer(claudeVertex.received.at(-1)!.headers)!;
    expect(fresh).not.toBe(revoked);
    expect(google.valid(fresh)).toBe(true);
  });

  test("the access token, should Vertex quote it in an error, is redacted", async () => {
    const client = await clients();
    claudeVertex.answer((request) => ({ status: 400, json: { type: "error", error: { type: "invalid_request_error", message: `token ${bearer(request.headers)} lacks a scope` } } }));
    const failure = await client.anthropic.messages.create({ model: "claude", max_tokens: 5, messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    expect(bearer(claudeVertex.received[0]!.headers)).toMatch(/^ya29\./);
    expect((failure as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { message: "token [redacted] lacks a scope" } });
  });

  test("a key the token endpoint does not accept: a 502 naming the gateway's credentials, and Vertex is never called", async () => {
    const client = await clients();
    const refusedBefore = google.refusedAssertions.length;
    const failure = await client.anthropic.messages.create({ model: "claude-foreign-key", max_tokens: 5, messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.InternalServerError);
    expect((failure as Error).message).toContain("could not obtain its own credentials for the provider vertex-foreign");
    expect(google.refusedAssertions.slice(refusedBefore)).toContain("Invalid JWT Signature.");
    expect(claudeVertex.received).toEqual([]);
  });

  test("the scripted Vertex itself refuses a token it did not issue, and a Claude body without anthropic_version", async () => {
    const token = google.issued.find((issued) => issued.email === claudeAccount.email && google.valid(issued.token))!.token;
    const call = (authorization: string, body: object) =>
      fetch(`${claudeVertex.origin}${CLAUDE_PATH}:rawPredict`, { method: "POST", headers: { authorization, "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await call("Bearer ya29.forged", { anthropic_version: "vertex-2023-10-16" })).status).toBe(401);
    expect((await call(`Bearer ${token}`, { model: "claude", messages: [] })).status).toBe(400);
  });
});

describe("a Vertex provider's config", () => {
  test("a credentials file that does not exist stops the start naming it", async () => {
    const config = GatewayConfig.parse({
      providers: { v: { kind: "vertex", project: PROJECT, region: "us-east5", publisher: "anthropic", credentialsFile: join(dir, "missing.json") } },
      models: [{ id: "m", family: "chat", routes: [{ provider: "v", model: "c" }], pricing: PRICING, maxOutputTokens: 10 }],
    });
    await expect(startGateway({ storage: "memory", config, port: 0 } as Parameters<typeof startGateway>[0])).rejects.toThrow(`provider v: cannot read the Google credentials file ${join(dir, "missing.json")}`);
  });

  test("a region and a publisher are checked by name; Vertex forwards chat models only", () => {
    const parsed = GatewayConfig.safeParse({
      providers: { v: { kind: "vertex", project: PROJECT, region: "Mars", publisher: "meta" } },
      models: [{ id: "e", family: "embeddings", routes: [{ provider: "v", model: "m" }], pricing: { inputUnitsPerMillionTokens: "1" } }],
    });
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["providers.v.region", "providers.v.publisher"]);
    const embeddings = GatewayConfig.safeParse({
      providers: { v: { kind: "vertex", project: PROJECT, region: "global", publisher: "openai-compatible" } },
      models: [{ id: "e", family: "embeddings", routes: [{ provider: "v", model: "m" }], pricing: { inputUnitsPerMillionTokens: "1" } }],
    });
    expect(embeddings.error?.issues.map((issue) => issue.message)).toEqual(['"v" (kind vertex) does not forward embeddings models; it forwards chat']);
  });
});
