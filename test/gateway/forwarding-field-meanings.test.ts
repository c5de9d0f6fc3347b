/**
 * Translation by meaning (docs/operators/upstream.md#translation-by-meaning): a field with no counterpart on the target wire is judged
 * by what it asks for. Inert fields (an empty list, a default, a name the call id already gives)
 * pass without a word; hints (an image's detail, a cache marker) pass without the field and are
 * named in `x-gateway-dropped-fields` and the request log; lossy fields are refused by name — or,
 * on a model configured `unsupportedFields: drop`, left out and named the same way.
 */
import { Writable } from "node:stream";
import { DROPPED_FIELDS_HEADER } from "@gateway-keys/contract";
import { chatAnswer, clientsOf, PRICING, useForwarding } from "./forwarding-support";
import { accountClient } from "./helpers";

const logLines: string[] = [];
const forwarding = useForwarding([{ id: "claude-drop", family: "chat", routes: [{ provider: "ant", model: "claude-up" }], pricing: PRICING, maxOutputTokens: 100, unsupportedFields: "drop" }], {
  logger: { level: "info", stream: new Writable({ write: (chunk, _encoding, done) => done(void logLines.push(String(chunk))) }) },
});

const MESSAGE = { id: "msg_up", type: "message", role: "assistant", model: "claude-up-2026", content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } };
const answersAsAnthropic = () => forwarding().provider.answer(() => ({ json: MESSAGE }));
const answersAsOpenAI = () => forwarding().provider.answer(() => ({ json: chatAnswer({ role: "assistant", content: "ok" }, "stop", { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }) }));
const droppedIn = (headers: Headers) => headers.get(DROPPED_FIELDS_HEADER)?.split(", ").sort() ?? null;

describe("hints: passed without the field, named to the client", () => {
  test("an OpenAI image part with detail low reaches an Anthropic-wire provider as an image block; the detail is named in the header and the request log", async () => {
    answersAsAnthropic();
    const client = await clientsOf(forwarding());
    const { data, response } = await client.openai.chat.completions
      .create({
        model: "claude",
        messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: "https://example.test/cat.png", detail: "low" } }] }],
      })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("ok");
    expect(forwarding().provider.received[0]!.body).toMatchObject({
      messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", source: { type: "url", url: "https://example.test/cat.png" } }] }],
    });
    expect(droppedIn(response.headers)).toEqual(["messages[0].content[1].image_url.detail"]);
    const logged = logLines.map((line) => JSON.parse(line) as { droppedFields?: string[] }).filter((line) => line.droppedFields);
    expect(logged.at(-1)!.droppedFields).toEqual(["messages[0].content[1].image_url.detail"]);
    // And in the request's log row, as GET /v1/account/logs shows it.
    const rows = (await accountClient(forwarding().gateway).logs(`?keyId=${client.keyId}`)).body.data;
    expect(rows.map((row: { status: number; droppedFields: string[] }) => [row.status, row.droppedFields])).toEqual([[200, ["messages[0].content[1].image_url.detail"]]]);
  });

  test("streamed, a Responses image's detail is named on the event stream's headers", async () => {
    forwarding().provider.answer(() => ({
      events: [
        { event: "message_start", data: { type: "message_start", message: { ...MESSAGE, content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 0 } } } },
        { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } } },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } } },
        { event: "message_stop", data: { type: "message_stop" } },
      ],
    }));
    const client = await clientsOf(forwarding());
    const { data: stream, response } = await client.openai.responses
      .create({ model: "claude", stream: true, input: [{ role: "user", content: [{ type: "input_image", image_url: "https://example.test/cat.png", detail: "high" }] }] })
      .withResponse();
    let text = "";
    for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
    expect(text).toBe("ok");
    expect(droppedIn(response.headers)).toEqual(["input[0].content[0].detail"]);
  });

  test("prompt-cache markers on Messages blocks and tools going to an OpenAI-wire provider are named; the request goes on", async () => {
    answersAsOpenAI();
    const client = await clientsOf(forwarding());
    const { response } = await client.anthropic.messages
      .create({
        model: "gpt",
        max_tokens: 10,
        system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
        messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }],
        tools: [{ name: "lookup", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
      })
      .withResponse();
    expect(droppedIn(response.headers)).toEqual(["messages[0].content[0].cache_control", "system[0].cache_control", "tools[0].cache_control"]);
    expect(JSON.stringify(forwarding().provider.received[0]!.body)).not.toContain("cache_control");
  });

  test("a user message's participant name is a hint: named, not refused", async () => {
    answersAsAnthropic();
    const client = await clientsOf(forwarding());
    const { response } = await client.openai.chat.completions.create({ model: "claude", messages: [{ role: "user", content: "hi", name: "ann" }] }).withResponse();
    expect(droppedIn(response.headers)).toEqual(["messages[0].name"]);
  });

  test("a replayed answer's filled citations and token probabilities are hints: its text reaches the provider, they are named", async () => {
    answersAsAnthropic();
    const client = await clientsOf(forwarding());
    const citation = { type: "url_citation", url: "https://example.test/weather", title: "Weather", start_index: 0, end_index: 5 };
    const logprob = { token: "Sunny", logprob: -0.1, bytes: [83], top_logprobs: [] };
    const { response } = await client.openai.responses
      .create({
        model: "claude",
        input: [
          { role: "user", content: "Weather?" },
          { type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Sunny", annotations: [citation], logprobs: [logprob] }] },
          { role: "user", content: "Thanks." },
        ],
      } as never)
      .withResponse();
    expect(droppedIn(response.headers)).toEqual(["input[1].content[0].annotations", "input[1].content[0].logprobs"]);
    expect(forwarding().provider.received[0]!.body).toMatchObject({
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather?" }] },
        { role: "assistant", content: [{ type: "text", text: "Sunny" }] },
        { role: "user", content: [{ type: "text", text: "Thanks." }] },
      ],
    });

    answersAsAnthropic();
    const chat = await client.openai.chat.completions
      .create({ model: "claude", messages: [{ role: "user", content: "Weather?" }, { role: "assistant", content: "Sunny", annotations: [{ type: "url_citation", url_citation: citation }] } as never, { role: "user", content: "Thanks." }] })
      .withResponse();
    expect(droppedIn(chat.response.headers)).toEqual(["messages[1].annotations"]);
  });
});

describe("inert fields: pass without a word", () => {
  test("a tool message's name beside its tool_call_id (LangChain) becomes the tool_result; nothing is named", async () => {
    answersAsAnthropic();
    const client = await clientsOf(forwarding());
    const { response } = await client.openai.chat.completions
      .create({
        model: "claude",
        messages: [
          { role: "user", content: "Paris" },
          { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"city":"Paris"}' } }] },
          { role: "tool", tool_call_id: "call_1", name: "lookup", content: "sunny" } as never,
        ],
        tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
      })
      .withResponse();
    expect(response.headers.get(DROPPED_FIELDS_HEADER)).toBeNull();
    expect(forwarding().provider.received[0]!.body).toMatchObject({ messages: [{}, {}, { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: [{ type: "text", text: "sunny" }] }] }] });
  });

  test("Responses include: [] (the Agents SDK sends it on every request) and other defaults reach an Anthropic-wire provider", async () => {
    answersAsAnthropic();
    const client = await clientsOf(forwarding());
    const { response } = await client.openai.responses.create({ model: "claude", input: "hi", include: [], truncation: "disabled", background: false, reasoning: {} }).withResponse();
    expect(response.headers.get(DROPPED_FIELDS_HEADER)).toBeNull();
    expect(forwarding().provider.received).toHaveLength(1);
  });

  test("eager_input_streaming on every tool of a streamed Messages request (@ai-sdk/anthropic) reaches an OpenAI-wire provider without it", async () => {
    forwarding().provider.answer(() => ({
      events: [
        { data: { id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-up", choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }] } },
        { data: { id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-up", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] } },
        { data: { id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-up", choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } } },
        { data: "[DONE]" },
      ],
    }));
    const client = await clientsOf(forwarding());
    const stream = client.anthropic.messages.stream({
      model: "gpt",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "lookup", input_schema: { type: "object" }, eager_input_streaming: true } as never],
    });
    expect((await stream.finalMessage()).content).toEqual([{ type: "text", text: "ok" }]);
    const sent = forwarding().provider.received[0]!.body as { tools: object[] };
    expect(sent.tools).toEqual([{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }]);
  });

  test("what a client keeps as it assembles an answer — the openai client's parse of the text and of a call's arguments, a streamed call's index — goes back without a word", async () => {
    answersAsAnthropic();
    const client = await clientsOf(forwarding());
    const tools = [{ type: "function", name: "lookup", parameters: { type: "object" }, strict: true }];
    const { response } = await client.openai.responses
      .create({
        model: "claude",
        tools,
        input: [
          { role: "user", content: "Paris" },
          { type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: '{"ok":true}', annotations: [], logprobs: [], parsed: { ok: true } }] },
          { type: "function_call", id: "fc_1", call_id: "call_1", name: "lookup", arguments: '{"city":"Paris"}', status: "completed", parsed_arguments: { city: "Paris" } },
          { type: "function_call_output", call_id: "call_1", output: "sunny" },
        ],
      } as never)
      .withResponse();
    expect(response.headers.get(DROPPED_FIELDS_HEADER)).toBeNull();
    expect(forwarding().provider.received[0]!.body).toMatchObject({
      messages: [{}, { role: "assistant", content: [{ type: "text", text: '{"ok":true}' }, { type: "tool_use", id: "call_1", name: "lookup", input: { city: "Paris" } }] }, {}],
    });

    answersAsAnthropic();
    const chat = await client.openai.chat.completions
      .create({
        model: "claude",
        tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" }, strict: true } }],
        messages: [
          { role: "user", content: "Paris" },
          { role: "assistant", content: null, refusal: null, parsed: null, tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: '{"city":"Paris"}', parsed_arguments: { city: "Paris" } } }] } as never,
          { role: "tool", tool_call_id: "call_1", content: "sunny" },
        ],
      })
      .withResponse();
    expect(chat.response.headers.get(DROPPED_FIELDS_HEADER)).toBeNull();
  });
});

describe("lossy fields", () => {
  test("Responses include asking for something the target cannot give is refused naming it; nothing reaches the provider", async () => {
    const client = await clientsOf(forwarding());
    const failure = await client.openai.responses.create({ model: "claude", input: "hi", include: ["reasoning.encrypted_content"] }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 400, code: "validation_failed", param: "include" });
    expect(forwarding().provider.received).toHaveLength(0);
  });

  test("on a model configured unsupportedFields: drop, lossy fields are left out and named, read side and write side alike", async () => {
    answersAsAnthropic();
    const client = await clientsOf(forwarding());
    const { response } = await client.openai.chat.completions.create({ model: "claude-drop", messages: [{ role: "user", content: "hi" }], seed: 7, logprobs: true, n: 2 } as never).withResponse();
    expect(droppedIn(response.headers)).toEqual(["logprobs", "n", "seed"]);
    const rows = (await accountClient(forwarding().gateway).logs(`?keyId=${client.keyId}`)).body.data;
    expect(rows[0].droppedFields.sort()).toEqual(["logprobs", "n", "seed"]);
    const sent = forwarding().provider.received[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ model: "claude-up", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect(Object.keys(sent)).not.toEqual(expect.arrayContaining(["seed"]));
  });

  test("a part of a kind the target has no counterpart for is refused even on a dropping model: only whole fields are dropped", async () => {
    const client = await clientsOf(forwarding());
    const failure = await client.openai.chat.completions
      .create({ model: "claude-drop", messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AA==", format: "wav" } }] }] })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 400, code: "validation_failed" });
    expect(forwarding().provider.received).toHaveLength(0);
  });
});
