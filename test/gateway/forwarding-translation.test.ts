/**
 * Cross-wire forwarding: a request on one wire to a provider of the other is translated whole —
 * system text, turns, images, tools (definitions, choice, calls, results, parallel calls, streamed
 * arguments), sampling, structured output, stop reasons and usage — and a field the target wire
 * cannot say is refused naming it, before anything reaches the provider or is charged.
 */
import { anthropicToolStream, chatAnswer, clientsOf, namedEvents, useForwarding } from "./forwarding-support";

const forwarding = useForwarding();

const CITY_SCHEMA = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

const anthropicToolAnswer = (blocks: object[]) => ({
  id: "msg_up",
  type: "message",
  role: "assistant",
  model: "claude-up-2026",
  content: blocks,
  stop_reason: "tool_use",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 6, cache_read_input_tokens: 20, cache_creation_input_tokens: 0 },
});

describe("Chat Completions to an Anthropic-wire provider", () => {
  test("a conversation with images, a tool call and its result, tools, sampling and structured output becomes its Messages body; tool_use comes back as tool_calls", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    provider.answer(() => ({
      json: anthropicToolAnswer([
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
      ]),
    }));
    const completion = await client.openai.chat.completions.create({
      model: "claude",
      messages: [
        { role: "developer", content: "Answer with tools." },
        {
          role: "user",
          content: [
            { type: "text", text: "Weather here?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            { type: "image_url", image_url: { url: "https://example.test/a.png", detail: "auto" } },
          ],
        },
        { role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
        { role: "tool", tool_call_id: "call_0", content: "snow" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather of a city", parameters: CITY_SCHEMA, strict: true } }],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.9,
      stop: ["END"],
      user: "end-user-1",
      response_format: { type: "json_schema", json_schema: { name: "weather", schema: { type: "object" } } },
      max_completion_tokens: 50,
    });

    expect(provider.received[0]!.path).toBe("/v1/messages");
    expect(provider.received[0]!.body).toEqual({
      model: "claude-up",
      max_tokens: 50,
      system: "Answer with tools.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Weather here?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { type: "url", url: "https://example.test/a.png" } },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "call_0", name: "get_weather", input: { city: "Oslo" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_0", content: [{ type: "text", text: "snow" }] }] },
      ],
      stop_sequences: ["END"],
      temperature: 0.2,
      top_p: 0.9,
      tools: [{ name: "get_weather", description: "Weather of a city", input_schema: CITY_SCHEMA, strict: true }],
      tool_choice: { type: "tool", name: "get_weather", disable_parallel_tool_use: true },
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
      metadata: { user_id: "end-user-1" },
    });
    expect(completion.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: { role: "assistant", content: "Checking.", tool_calls: [{ id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
    });
    // Anthropic's input_tokens leaves out cached ones; Chat Completions' prompt_tokens counts them.
    expect(completion.usage).toEqual({ prompt_tokens: 30, completion_tokens: 6, total_tokens: 36, prompt_tokens_details: { cached_tokens: 20 } });
    expect(await client.spentUnits()).toBe("42");
  });

  test("a streamed answer with text and two parallel tool calls arrives as content and tool_calls deltas the SDK's helper assembles", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    const events = [
      { type: "message_start", message: { ...anthropicToolAnswer([]), stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Checking." } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"city":' } },
      { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"Paris"}' } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_2", name: "get_weather", input: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"city":"Oslo"}' } },
      { type: "content_block_stop", index: 2 },
      { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    ];
    provider.answer(() => namedEvents(events));
    const runner = client.openai.chat.completions.stream({
      model: "claude",
      messages: [{ role: "user", content: "Paris and Oslo?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: CITY_SCHEMA } }],
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();

    expect(provider.received[0]!.body).toEqual({
      model: "claude-up",
      max_tokens: 100,
      messages: [{ role: "user", content: [{ type: "text", text: "Paris and Oslo?" }] }],
      tools: [{ name: "get_weather", input_schema: CITY_SCHEMA }],
      stream: true,
    });
    expect(final.choices[0]!.message.content).toBe("Checking.");
    expect(final.choices[0]!.message.tool_calls?.map((call) => call.type === "function" && [call.id, call.function.name, call.function.arguments])).toEqual([
      ["toolu_1", "get_weather", '{"city":"Paris"}'],
      ["toolu_2", "get_weather", '{"city":"Oslo"}'],
    ]);
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 9 });
    expect(await client.spentUnits()).toBe("28");
  });
});

const chatToolAnswer = chatAnswer(
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
      { id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
    ],
  },
  "tool_calls",
  { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37, prompt_tokens_details: { cached_tokens: 10 } },
);

describe("Messages to an OpenAI-wire provider", () => {
  test("images, a tool_use and its failed tool_result, tools and sampling become a Chat Completions body; parallel tool_calls come back as tool_use blocks", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    provider.answer(() => ({ json: chatToolAnswer }));
    const message = await client.anthropic.messages.create({
      model: "gpt",
      max_tokens: 64,
      system: "You are terse.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Weather in this city?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_0", name: "get_weather", input: { city: "Oslo" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_0", content: "no such city", is_error: true }, { type: "text", text: "Try Paris and Oslo." }] },
      ],
      tools: [{ name: "get_weather", description: "Weather of a city", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
      tool_choice: { type: "any" },
      temperature: 0.5,
      top_p: 0.9,
      stop_sequences: ["END"],
      metadata: { user_id: "end-user-1" },
    } as Parameters<typeof client.anthropic.messages.create>[0] as never);

    expect(provider.received[0]!.path).toBe("/v1/chat/completions");
    expect(provider.received[0]!.body).toEqual({
      model: "gpt-up",
      messages: [
        { role: "system", content: "You are terse." },
        {
          role: "user",
          content: [
            { type: "text", text: "Weather in this city?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
        { role: "assistant", content: null, tool_calls: [{ id: "toolu_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
        // Chat Completions has no error flag on a tool result: the text carries it.
        { role: "tool", tool_call_id: "toolu_0", content: "Error: no such city" },
        { role: "user", content: "Try Paris and Oslo." },
      ],
      max_completion_tokens: 64,
      stop: ["END"],
      temperature: 0.5,
      top_p: 0.9,
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather of a city", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
      tool_choice: "required",
      user: "end-user-1",
    });
    expect(message.content).toEqual([
      { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
      { type: "tool_use", id: "call_2", name: "get_weather", input: { city: "Oslo" } },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ input_tokens: 20, cache_read_input_tokens: 10, output_tokens: 7 });
    expect(await client.spentUnits()).toBe("44");
  });

  test("a streamed answer's content and tool call deltas arrive as text and input_json_delta blocks the SDK's helper assembles", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    const chunk = (delta: object, finish: string | null = null) => ({ id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-up", choices: [{ index: 0, delta, finish_reason: finish }] });
    const events = [
      chunk({ role: "assistant", content: "On it." }),
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({}, "tool_calls"),
      { id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-up", choices: [], usage: { prompt_tokens: 12, completion_tokens: 8 } },
      "[DONE]",
    ];
    provider.answer(() => ({ events: events.map((data) => ({ data })) }));
    const final = await client.anthropic.messages
      .stream({ model: "gpt", max_tokens: 64, messages: [{ role: "user", content: "Paris?" }], tools: [{ name: "get_weather", input_schema: { type: "object" } }] })
      .finalMessage();

    expect(provider.received[0]!.body).toMatchObject({ model: "gpt-up", stream: true, stream_options: { include_usage: true }, max_completion_tokens: 64 });
    expect(final.content).toEqual([
      { type: "text", text: "On it." },
      { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
    ]);
    expect(final.stop_reason).toBe("tool_use");
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 8 });
    expect(await client.spentUnits()).toBe("28");
  });
});

describe("Responses to an Anthropic-wire provider", () => {
  test("function tools are called: the tool_use comes back as a function_call item, and its output goes back as a tool_result", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    provider.answer(() => ({ json: anthropicToolAnswer([{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }]) }));
    const tools = [{ type: "function" as const, name: "get_weather", parameters: CITY_SCHEMA, strict: true }];
    const first = await client.openai.responses.create({ model: "claude", instructions: "Use tools.", input: "Paris?", tools, max_output_tokens: 40 });

    expect(first.output).toMatchObject([{ type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" }]);
    expect(provider.received[0]!.body).toEqual({
      model: "claude-up",
      max_tokens: 40,
      system: "Use tools.",
      messages: [{ role: "user", content: [{ type: "text", text: "Paris?" }] }],
      tools: [{ name: "get_weather", input_schema: CITY_SCHEMA, strict: true }],
    });

    provider.answer(() => ({ json: { ...anthropicToolAnswer([{ type: "text", text: "Sunny in Paris." }]), stop_reason: "end_turn" } }));
    const call = first.output[0]! as { call_id: string; name: string; arguments: string };
    const second = await client.openai.responses.create({
      model: "claude",
      input: [
        { role: "user", content: "Paris?" },
        { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: "function_call_output", call_id: call.call_id, output: "sunny" },
      ],
      tools,
      max_output_tokens: 40,
    });
    expect(second.output_text).toBe("Sunny in Paris.");
    expect(provider.received[1]!.body).toMatchObject({
      messages: [
        { role: "user", content: [{ type: "text", text: "Paris?" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "sunny" }] }] },
      ],
    });
  });

  test("a streamed tool call arrives as function_call_arguments events the SDK's helper assembles", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    provider.answer(() => namedEvents(anthropicToolStream(anthropicToolAnswer([]))));
    const deltas: string[] = [];
    const stream = client.openai.responses.stream({ model: "claude", input: "Paris?", tools: [{ type: "function", name: "get_weather", parameters: CITY_SCHEMA, strict: true }] });
    stream.on("response.function_call_arguments.delta", (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();

    expect(deltas).toEqual(['{"city":', '"Paris"}']);
    expect(final.output).toMatchObject([{ type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' }]);
    expect(final.usage).toMatchObject({ input_tokens: 10, output_tokens: 6 });
  });

  test("the provider's cache read and write reach input_tokens_details; input_tokens counts both, charged once", async () => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    const usage = { input_tokens: 10, output_tokens: 6, cache_read_input_tokens: 20, cache_creation_input_tokens: 30 };
    provider.answer(() => ({ json: { ...anthropicToolAnswer([{ type: "text", text: "Cached." }]), stop_reason: "end_turn", usage } }));
    const response = await client.openai.responses.create({ model: "claude", input: "hi" });

    expect(response.usage).toMatchObject({ input_tokens: 60, input_tokens_details: { cached_tokens: 20, cache_write_tokens: 30 }, output_tokens: 6, total_tokens: 66 });
    expect(await client.spentUnits()).toBe("72");
  });
});

describe("fields the target wire cannot say", () => {
  test.each([
    ["chat logprobs to an Anthropic provider", "claude", { logprobs: true }, "logprobs"],
    ["chat seed to an Anthropic provider", "claude", { seed: 1 }, "seed"],
    ["chat JSON mode without a schema to an Anthropic provider", "claude", { response_format: { type: "json_object" } }, "response_format"],
    ["chat n of 2 to an Anthropic provider", "claude", { n: 2 }, "n"],
    ["an assistant's audio reference to an Anthropic provider", "claude", { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "", audio: { id: "audio_1" } }, { role: "user", content: "again" }] }, "messages[1].audio"],
    ["an audio part to an Anthropic provider", "claude", { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AA==", format: "wav" } }] }] }, "messages[0].content[0].type"],
  ])("%s is 400 naming the field; nothing reaches the provider or is charged", async (_what, model, fields, param) => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    const failure = await client.openai.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }], ...fields } as never).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 400, code: "validation_failed", param });
    expect((failure as Error).message).toContain("cannot be carried to the Anthropic Messages wire that model \"claude\" is served on");
    expect(provider.received).toHaveLength(0);
    expect(await client.spentUnits()).toBe("0");
  });

  test.each([
    ["top_k to an OpenAI provider", { top_k: 5 }, "top_k"],
    ["a document block to an OpenAI provider", { messages: [{ role: "user", content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" } }] }] }, "messages[0].content[0].type"],
    ["thinking to an OpenAI provider", { thinking: { type: "enabled", budget_tokens: 1024 } }, "thinking"],
  ])("Messages %s is 400 in Anthropic's error body; nothing reaches the provider", async (_what, fields, param) => {
    const { provider } = forwarding();
    const client = await clientsOf(forwarding());
    const failure = await client.anthropic.messages.create({ model: "gpt", max_tokens: 5, messages: [{ role: "user", content: "hi" }], ...fields } as never).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error" } } });
    expect((failure as Error).message).toContain(param);
    expect(provider.received).toHaveLength(0);
    expect(await client.spentUnits()).toBe("0");
  });
});
