/**
 * Same-wire forwarding: a request whose wire the provider speaks reaches it as the client sent it —
 * every field, known today or not — but for what the gateway owns (`model`, a bound when the key's
 * spend limit needs one, usage asked of a stream), and the answer comes back as the provider sent
 * it. Seen through the official clients, asserted at the scripted provider.
 */
import { COST_HEADER } from "@gateway-keys/contract";
import { anthropicToolStream, chatAnswer, clientsOf, expectNoGatewayKey, namedEvents, PRICING, PROVIDER_KEY, useForwarding } from "./forwarding-support";

const forwarding = useForwarding([{ id: "team/gpt", family: "chat", routes: [{ provider: "oai", model: "gpt-up" }], pricing: PRICING, maxOutputTokens: 100 }]);

test("a configured model is retrieved by id with the official client, a slash in its id included", async () => {
  const client = await clientsOf(forwarding());
  expect(await client.openai.models.retrieve("team/gpt")).toMatchObject({ id: "team/gpt", object: "model", owned_by: "oai", family: "chat" });
  await expect(client.openai.models.retrieve("nope")).rejects.toMatchObject({ status: 404, code: "model_not_found" });
});

const WEATHER_TOOL = {
  type: "function" as const,
  function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: true },
};

const TOOL_CALL_ANSWER = {
  ...chatAnswer(
    { role: "assistant", content: null, refusal: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
    "tool_calls",
    { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37, prompt_tokens_details: { cached_tokens: 10 } },
  ),
  system_fingerprint: "fp_up",
  service_tier: "flex",
};

describe("Chat Completions to an OpenAI-wire provider", () => {
  test("every field of the request arrives unchanged but the model, and the answer comes back as the provider sent it", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    provider.answer(() => ({ json: TOOL_CALL_ANSWER }));
    const body = {
      model: "gpt",
      messages: [
        { role: "developer" as const, content: "Answer with tools." },
        {
          role: "user" as const,
          content: [
            { type: "text" as const, text: "Weather where this photo was taken?" },
            { type: "image_url" as const, image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" as const } },
          ],
        },
        { role: "assistant" as const, content: null, tool_calls: [{ id: "call_0", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
        { role: "tool" as const, tool_call_id: "call_0", content: "snow" },
      ],
      tools: [WEATHER_TOOL],
      tool_choice: "auto" as const,
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.9,
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      user: "end-user-1",
      logprobs: true,
      top_logprobs: 2,
      n: 2,
      metadata: { run: "forwarding" },
      reasoning_effort: "low" as const,
      service_tier: "flex" as const,
      response_format: { type: "json_schema" as const, json_schema: { name: "weather", schema: { type: "object" }, strict: true } },
      max_completion_tokens: 50,
      prediction: { type: "content" as const, content: "sunny" },
      web_search_options: { search_context_size: "low" as const },
      store: true,
      stop: ["\n\n"],
    };
    const { data, response } = await client.openai.chat.completions.create({ ...body, a_field_from_tomorrow: { x: 1 } } as typeof body).withResponse();

    expect(provider.received).toHaveLength(1);
    const received = provider.received[0]!;
    expect(received.path).toBe("/v1/chat/completions");
    expect(received.body).toEqual({ ...body, a_field_from_tomorrow: { x: 1 }, model: "gpt-up" });
    expect(received.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    expectNoGatewayKey(received.headers, client.secret);
    expect(JSON.parse(JSON.stringify(data))).toEqual(TOOL_CALL_ANSWER);
    // 30 input tokens at 1, 7 output tokens at 2.
    expect(response.headers.get(COST_HEADER)).toBe("44");
    expect(await client.spentUnits()).toBe("44");
  });

  test("a key with a spend limit sends the model's bound when the client set none; a key without one sends none", async () => {
    const { provider } = forwarding();
    provider.answer(() => ({ json: { ...TOOL_CALL_ANSWER, usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } } }));
    const limited = await clientsOf(forwarding(), { spendPolicy: { limitUnits: "1000" } });
    await limited.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "hi" }] });
    const unlimited = await clientsOf(forwarding());
    await unlimited.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "hi" }] });
    const legacy = await clientsOf(forwarding(), { spendPolicy: { limitUnits: "1000" } });
    await legacy.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 20 });

    expect(provider.received.map((request) => request.body)).toEqual([
      { model: "gpt-up", messages: [{ role: "user", content: "hi" }], max_completion_tokens: 100 },
      { model: "gpt-up", messages: [{ role: "user", content: "hi" }] },
      // The client's own bound keeps its own name.
      { model: "gpt-up", messages: [{ role: "user", content: "hi" }], max_tokens: 20 },
    ]);
  });

  const chunk = (delta: object, finish: string | null = null) => ({
    id: "chatcmpl-up",
    object: "chat.completion.chunk",
    created: 1_800_000_000,
    model: "gpt-up-2026",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });
  const TOOL_STREAM = [
    chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
    chunk({}, "tool_calls"),
  ];
  const USAGE_CHUNK = { id: "chatcmpl-up", object: "chat.completion.chunk", created: 1_800_000_000, model: "gpt-up-2026", choices: [], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } };

  test("a stream's chunks, tool call deltas included, arrive as sent; usage is asked of the provider and its chunk kept from a client that did not ask", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    provider.answer(() => ({ events: [...TOOL_STREAM, USAGE_CHUNK, "[DONE]"].map((data) => ({ data })) }));
    const stream = await client.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "Paris?" }], tools: [WEATHER_TOOL], stream: true });
    const chunks: unknown[] = [];
    for await (const piece of stream) chunks.push(JSON.parse(JSON.stringify(piece)));

    expect(provider.received[0]!.body).toEqual({ model: "gpt-up", messages: [{ role: "user", content: "Paris?" }], tools: [WEATHER_TOOL], stream: true, stream_options: { include_usage: true } });
    expect(chunks).toEqual(TOOL_STREAM);
    // Charged from the provider's usage: 20 + 9 × 2.
    expect(await client.spentUnits()).toBe("38");
  });

  test("a client that asked for usage gets the usage chunk, and the SDK's stream helper assembles the tool call", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    provider.answer(() => ({ events: [...TOOL_STREAM, USAGE_CHUNK, "[DONE]"].map((data) => ({ data })) }));
    const runner = client.openai.chat.completions.stream({ model: "gpt", messages: [{ role: "user", content: "Paris?" }], tools: [WEATHER_TOOL], stream_options: { include_usage: true } });
    const final = await runner.finalChatCompletion();

    expect(provider.received[0]!.body).toMatchObject({ stream_options: { include_usage: true } });
    expect(final.choices[0]!.message.tool_calls).toEqual([{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}', parsed_arguments: { city: "Paris" } } }]);
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.usage).toEqual(USAGE_CHUNK.usage);
  });
});

describe("Responses to an OpenAI-wire provider", () => {
  const RESPONSE = {
    id: "resp_up",
    object: "response",
    created_at: 1_800_000_000,
    status: "completed",
    model: "gpt-up-2026",
    output: [{ type: "function_call", id: "fc_1", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" }],
    usage: { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 17 },
  };

  test("function and built-in tools, reasoning and include arrive unchanged, and the function_call item comes back", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    provider.answer(() => ({ json: RESPONSE }));
    const body = {
      model: "gpt",
      input: [{ role: "user" as const, content: [{ type: "input_text" as const, text: "Paris?" }, { type: "input_image" as const, image_url: "https://example.test/a.png", detail: "auto" as const }] }],
      instructions: "Use tools.",
      tools: [{ type: "function" as const, name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: true }, { type: "web_search" as const }],
      tool_choice: "required" as const,
      reasoning: { effort: "low" as const, summary: "auto" as const },
      include: ["reasoning.encrypted_content" as const],
      store: false,
      text: { format: { type: "json_schema" as const, name: "w", schema: { type: "object" } } },
      previous_response_id: "resp_before",
    };
    const answer = await client.openai.responses.create(body);

    expect(provider.received[0]!.path).toBe("/v1/responses");
    expect(provider.received[0]!.body).toEqual({ ...body, model: "gpt-up" });
    expect(answer.output).toEqual(RESPONSE.output);
    expect(await client.spentUnits()).toBe("22");
  });

  test("a streamed response is relayed event by event and the SDK's helper builds the final response", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    const item = { type: "message", id: "msg_1", status: "in_progress", role: "assistant", content: [] };
    const events = [
      { type: "response.created", sequence_number: 0, response: { ...RESPONSE, status: "in_progress", output: [], usage: null } },
      { type: "response.output_item.added", sequence_number: 1, output_index: 0, item },
      { type: "response.content_part.added", sequence_number: 2, item_id: "msg_1", output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } },
      { type: "response.output_text.delta", sequence_number: 3, item_id: "msg_1", output_index: 0, content_index: 0, delta: "sunny", logprobs: [] },
      { type: "response.output_text.done", sequence_number: 4, item_id: "msg_1", output_index: 0, content_index: 0, text: "sunny", logprobs: [] },
      { type: "response.output_item.done", sequence_number: 5, output_index: 0, item: { ...item, status: "completed", content: [{ type: "output_text", text: "sunny", annotations: [], logprobs: [] }] } },
      {
        type: "response.completed",
        sequence_number: 6,
        response: { ...RESPONSE, output: [{ ...item, status: "completed", content: [{ type: "output_text", text: "sunny", annotations: [], logprobs: [] }] }] },
      },
    ];
    provider.answer(() => namedEvents(events));
    const seen: string[] = [];
    const stream = client.openai.responses.stream({ model: "gpt", input: "weather?" });
    stream.on("event", (event) => seen.push(event.type));
    const final = await stream.finalResponse();

    expect(provider.received[0]!.body).toEqual({ model: "gpt-up", input: "weather?", stream: true });
    expect(seen).toEqual(events.map((event) => event.type));
    expect(final.output_text).toBe("sunny");
    expect(await client.spentUnits()).toBe("22");
  });
});

describe("Messages to an Anthropic-wire provider", () => {
  const MESSAGE = {
    id: "msg_up",
    type: "message",
    role: "assistant",
    model: "claude-up-2026",
    content: [
      { type: "thinking", thinking: "The user wants weather.", signature: "sig" },
      { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 6, cache_read_input_tokens: 20, cache_creation_input_tokens: 0 },
  };

  test("system blocks with cache_control, thinking, tools and sampling arrive unchanged, with the client's version and beta headers", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    provider.answer(() => ({ json: MESSAGE }));
    const body = {
      model: "claude",
      max_tokens: 64,
      system: [{ type: "text" as const, text: "You are terse.", cache_control: { type: "ephemeral" as const } }],
      messages: [
        {
          role: "user" as const,
          content: [
            { type: "text" as const, text: "Weather in this photo's city?" },
            { type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data: "iVBORw0KGgo=" } },
          ],
        },
      ],
      tools: [{ name: "get_weather", description: "Weather of a city", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } }],
      tool_choice: { type: "auto" as const, disable_parallel_tool_use: true },
      thinking: { type: "enabled" as const, budget_tokens: 32 },
      temperature: 1,
      top_k: 5,
      top_p: 0.9,
      metadata: { user_id: "end-user-1" },
      service_tier: "standard_only" as const,
      stop_sequences: ["END"],
    };
    const answer = await client.anthropic.messages.create(body, { headers: { "anthropic-version": "2023-06-01", "anthropic-beta": "interleaved-thinking-2025-05-14" } });

    const received = provider.received[0]!;
    expect(received.path).toBe("/v1/messages");
    expect(received.body).toEqual({ ...body, model: "claude-up" });
    expect(received.headers["x-api-key"]).toBe(PROVIDER_KEY);
    expect(received.headers["anthropic-version"]).toBe("2023-06-01");
    expect(received.headers["anthropic-beta"]).toBe("interleaved-thinking-2025-05-14");
    expect(received.headers.authorization).toBeUndefined();
    expectNoGatewayKey(received.headers, client.secret);
    expect(JSON.parse(JSON.stringify(answer))).toEqual(MESSAGE);
    // Input counts the cached tokens too: (10 + 20) × 1 + 6 × 2.
    expect(await client.spentUnits()).toBe("42");
  });

  test("a streamed tool call (input_json_delta) is relayed and the SDK's helper parses its input", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    const events = anthropicToolStream(MESSAGE);
    provider.answer(() => namedEvents(events));
    const seen: string[] = [];
    const stream = client.anthropic.messages.stream({ model: "claude", max_tokens: 64, messages: [{ role: "user", content: "Paris?" }] });
    stream.on("streamEvent", (event) => seen.push(event.type));
    const final = await stream.finalMessage();

    expect(provider.received[0]!.body).toEqual({ model: "claude-up", max_tokens: 64, messages: [{ role: "user", content: "Paris?" }], stream: true });
    // The SDK hands every event but `ping` to its listeners.
    expect(seen).toEqual(events.map((event) => event.type).filter((type) => type !== "ping"));
    expect(final.content).toEqual([{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }]);
    expect(final.stop_reason).toBe("tool_use");
    expect(await client.spentUnits()).toBe("22");
  });
});
