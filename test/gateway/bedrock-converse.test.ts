/**
 * Amazon Bedrock through Converse / ConverseStream: every client wire (Chat Completions,
 * Responses, Messages) reaches a `bedrock` provider translated to Converse, signed with SigV4
 * (verified by the scripted Bedrock with the AWS SDK's own signer), and gets its answer — whole,
 * or decoded from AWS event-stream frames — charged from Bedrock's usage. Bedrock's refusals and
 * exceptions reach the client in its own terms; no secret ever does.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { DROPPED_FIELDS_HEADER } from "@gateway-keys/contract";
import { awsError, converseStream } from "@gateway-keys/testkit/scripted-bedrock";
import { clientsOf, ENV_KEYS, expectNoGatewayKey, expectNoSecret, modelPath, NOVA, REGION, useBedrock } from "./bedrock-support";

const forwarding = useBedrock();
const clients = () => clientsOf({ provider: forwarding().bedrock, gateway: forwarding().gateway });

const CITY_SCHEMA = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const PNG = "iVBORw0KGgo=";

const converseAnswer = (content: object[], stopReason: string, usage: object) => ({ output: { message: { role: "assistant", content } }, stopReason, usage, metrics: { latencyMs: 120 } });

/** A ConverseStream of some text, then a `get_weather` tool use whose input comes in two pieces; usage 10 in, 6 out. */
const toolStream = [
  { type: "messageStart", payload: { role: "assistant" } },
  { type: "contentBlockDelta", payload: { contentBlockIndex: 0, delta: { text: "Checking" } } },
  { type: "contentBlockDelta", payload: { contentBlockIndex: 0, delta: { text: " now." } } },
  { type: "contentBlockStop", payload: { contentBlockIndex: 0 } },
  { type: "contentBlockStart", payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId: "tooluse_1", name: "get_weather" } } } },
  { type: "contentBlockDelta", payload: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } } },
  { type: "contentBlockDelta", payload: { contentBlockIndex: 1, delta: { toolUse: { input: '"Paris"}' } } } },
  { type: "contentBlockStop", payload: { contentBlockIndex: 1 } },
  { type: "messageStop", payload: { stopReason: "tool_use" } },
  { type: "metadata", payload: { usage: { inputTokens: 10, outputTokens: 6, totalTokens: 16 }, metrics: { latencyMs: 90 } } },
];

describe("Chat Completions to Bedrock Converse", () => {
  test("a conversation with an image, a tool call and its result, tools, sampling and structured output becomes a signed Converse request; toolUse comes back as tool_calls, charged from Bedrock's usage", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({
      json: converseAnswer(
        [{ text: "Checking." }, { toolUse: { toolUseId: "tooluse_1", name: "get_weather", input: { city: "Paris" } } }],
        "tool_use",
        { inputTokens: 10, outputTokens: 6, totalTokens: 36, cacheReadInputTokens: 20, cacheWriteInputTokens: 0 },
      ),
    }));
    const completion = await client.openai.chat.completions.create({
      model: "nova",
      messages: [
        { role: "developer", content: "Answer with tools." },
        {
          role: "user",
          content: [
            { type: "text", text: "Weather here?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "auto" } },
          ],
        },
        { role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] },
        { role: "tool", tool_call_id: "call_0", content: "snow" },
      ],
      tools: [{ type: "function", function: { name: "get_weather", description: "Weather of a city", parameters: CITY_SCHEMA, strict: true } }],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      temperature: 0.2,
      top_p: 0.9,
      stop: ["END"],
      response_format: { type: "json_schema", json_schema: { name: "weather", schema: { type: "object" } } },
      max_completion_tokens: 50,
    });

    const received = bedrock.received[0]!;
    expect(received.url).toBe("/model/amazon.nova-pro-v1%3A0/converse");
    expect(received.body).toEqual({
      messages: [
        { role: "user", content: [{ text: "Weather here?" }, { image: { format: "png", source: { bytes: PNG } } }] },
        { role: "assistant", content: [{ toolUse: { toolUseId: "call_0", name: "get_weather", input: { city: "Oslo" } } }] },
        { role: "user", content: [{ toolResult: { toolUseId: "call_0", content: [{ text: "snow" }] } }] },
      ],
      system: [{ text: "Answer with tools." }],
      inferenceConfig: { maxTokens: 50, temperature: 0.2, topP: 0.9, stopSequences: ["END"] },
      toolConfig: {
        tools: [{ toolSpec: { name: "get_weather", description: "Weather of a city", inputSchema: { json: CITY_SCHEMA }, strict: true } }],
        toolChoice: { tool: { name: "get_weather" } },
      },
      outputConfig: { textFormat: { type: "json_schema", structure: { jsonSchema: { name: "weather", schema: '{"type":"object"}' } } } },
    });
    // Signed by the AWS signer for the region and service, with the session token; the signature held.
    expect(received.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${ENV_KEYS.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$`));
    expect(received.headers["x-amz-security-token"]).toBe(ENV_KEYS.sessionToken);
    expect(bedrock.refusals).toEqual([]);
    expectNoGatewayKey(received.headers, client.secret);

    expect(completion.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: { role: "assistant", content: "Checking.", tool_calls: [{ id: "tooluse_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
    });
    // Converse's inputTokens leaves out cached input; the gateway counts it (10 + 20 read).
    expect(completion.usage).toEqual({ prompt_tokens: 30, completion_tokens: 6, total_tokens: 36, prompt_tokens_details: { cached_tokens: 20 } });
    expect(await client.spentUnits()).toBe("42");
  });

  test("a ConverseStream of text and a tool use, in event-stream frames split across chunks, arrives as content and tool_calls deltas the SDK assembles", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => converseStream(toolStream));
    const runner = client.openai.chat.completions.stream({
      model: "nova",
      messages: [{ role: "user", content: "Paris?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: CITY_SCHEMA } }],
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();

    expect(bedrock.received[0]!.url).toBe(modelPath(NOVA, "converse-stream"));
    expect(bedrock.received[0]!.headers.accept).toBe("application/vnd.amazon.eventstream");
    expect(final.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: { content: "Checking now.", tool_calls: [{ id: "tooluse_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
    });
    expect(final.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 6 });
    expect(await client.spentUnits()).toBe("22");
  });

  test("an image's detail and the end user's id are hints: the request is sent without them, and they are named in x-gateway-dropped-fields", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({ json: converseAnswer([{ text: "A cat." }], "end_turn", { inputTokens: 5, outputTokens: 2, totalTokens: 7 }) }));
    const { data, response } = await client.openai.chat.completions
      .create({
        model: "nova",
        user: "end-user-7",
        messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "low" } }] }],
      })
      .withResponse();

    expect(data.choices[0]!.message.content).toBe("A cat.");
    expect(bedrock.received[0]!.body).toEqual({
      messages: [{ role: "user", content: [{ text: "What is this?" }, { image: { format: "png", source: { bytes: PNG } } }] }],
      inferenceConfig: { maxTokens: 100 },
    });
    expect(response.headers.get(DROPPED_FIELDS_HEADER)?.split(", ").sort()).toEqual(["messages[0].content[1].image_url.detail", "user"]);
  });

  test("a field Converse has no counterpart for is refused naming it, before anything is signed, sent or charged", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    const failures = await Promise.all([
      client.openai.chat.completions.create({ model: "nova", messages: [{ role: "user", content: "hi" }], seed: 7 }).catch((error: unknown) => error),
      client.openai.chat.completions
        .create({ model: "nova", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.test/a.png" } }] }] })
        .catch((error: unknown) => error),
    ]);
    expect(failures[0]).toMatchObject({ status: 400, code: "validation_failed", param: "seed" });
    expect((failures[0] as Error).message).toContain("the Amazon Bedrock Converse wire");
    expect(failures[1]).toMatchObject({ status: 400, code: "validation_failed", param: "messages[0].content[0]" });
    expect((failures[1] as Error).message).toContain("takes images as bytes only");
    expect(bedrock.received).toHaveLength(0);
    expect(await client.spentUnits()).toBe("0");
  });
});

describe("Responses to Bedrock Converse", () => {
  test("an input image and a function call round trip: the image becomes bytes, the call and its output toolUse and toolResult blocks", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({ json: converseAnswer([{ text: "Sunny in Paris." }], "end_turn", { inputTokens: 12, outputTokens: 4, totalTokens: 16 }) }));
    const response = await client.openai.responses.create({
      model: "nova",
      instructions: "Use tools.",
      input: [
        { role: "user", content: [{ type: "input_text", text: "Paris?" }, { type: "input_image", image_url: "data:image/gif;base64,R0lGODlh", detail: "auto" }] },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "call_1", output: "sunny" },
      ],
      tools: [{ type: "function", name: "get_weather", parameters: CITY_SCHEMA, strict: false }],
      max_output_tokens: 40,
    });

    expect(bedrock.received[0]!.body).toEqual({
      messages: [
        { role: "user", content: [{ text: "Paris?" }, { image: { format: "gif", source: { bytes: "R0lGODlh" } } }] },
        { role: "assistant", content: [{ toolUse: { toolUseId: "call_1", name: "get_weather", input: { city: "Paris" } } }] },
        { role: "user", content: [{ toolResult: { toolUseId: "call_1", content: [{ text: "sunny" }] } }] },
      ],
      system: [{ text: "Use tools." }],
      inferenceConfig: { maxTokens: 40 },
      toolConfig: { tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: CITY_SCHEMA }, strict: false } }] },
    });
    expect(response.output_text).toBe("Sunny in Paris.");
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 4 });
    expect(await client.spentUnits()).toBe("20");
  });

  test("a streamed tool call arrives as function_call_arguments deltas the SDK's stream assembles", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => converseStream(toolStream));
    const stream = client.openai.responses.stream({ model: "nova", input: "Paris?", tools: [{ type: "function", name: "get_weather", parameters: CITY_SCHEMA, strict: true }] });
    const deltas: string[] = [];
    stream.on("response.function_call_arguments.delta", (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();

    expect(deltas).toEqual(['{"city":', '"Paris"}']);
    expect(final.output).toMatchObject([
      { type: "message", content: [{ type: "output_text", text: "Checking now." }] },
      { type: "function_call", call_id: "tooluse_1", name: "get_weather", arguments: '{"city":"Paris"}' },
    ]);
    expect(await client.spentUnits()).toBe("22");
  });
});

describe("Messages to Bedrock Converse", () => {
  test("an image block, a tool use and a failed tool result become Converse blocks (the failure as status error); the answer is a Messages message", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({ json: converseAnswer([{ text: "Retrying." }], "max_tokens", { inputTokens: 9, outputTokens: 30, totalTokens: 39 }) }));
    const message = await client.anthropic.messages.create({
      model: "nova",
      max_tokens: 30,
      system: "Be brief.",
      messages: [
        { role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Rome" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "service down", is_error: true }] },
      ],
      tools: [{ name: "get_weather", input_schema: CITY_SCHEMA as Anthropic.Tool.InputSchema }],
      tool_choice: { type: "any" },
      stop_sequences: ["STOP"],
    });

    expect(bedrock.received[0]!.body).toEqual({
      messages: [
        { role: "user", content: [{ text: "What is this?" }, { image: { format: "jpeg", source: { bytes: "/9j/4AAQ" } } }] },
        { role: "assistant", content: [{ toolUse: { toolUseId: "toolu_9", name: "get_weather", input: { city: "Rome" } } }] },
        { role: "user", content: [{ toolResult: { toolUseId: "toolu_9", content: [{ text: "service down" }], status: "error" } }] },
      ],
      system: [{ text: "Be brief." }],
      inferenceConfig: { maxTokens: 30, stopSequences: ["STOP"] },
      toolConfig: { tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: CITY_SCHEMA } } }], toolChoice: { any: {} } },
    });
    expect(message).toMatchObject({ role: "assistant", content: [{ type: "text", text: "Retrying." }], stop_reason: "max_tokens", usage: { input_tokens: 9, output_tokens: 30 } });
    expect(await client.spentUnits()).toBe("69");
  });

  test("a streamed answer arrives through the SDK's stream as text and tool_use input deltas", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => converseStream(toolStream, { gapMs: 2 }));
    const final = await client.anthropic.messages
      .stream({ model: "nova", max_tokens: 50, messages: [{ role: "user", content: "Paris?" }], tools: [{ name: "get_weather", input_schema: CITY_SCHEMA as Anthropic.Tool.InputSchema }] })
      .finalMessage();

    expect(final).toMatchObject({
      stop_reason: "tool_use",
      content: [
        { type: "text", text: "Checking now." },
        { type: "tool_use", id: "tooluse_1", name: "get_weather", input: { city: "Paris" } },
      ],
      usage: { output_tokens: 6 },
    });
    expect(await client.spentUnits()).toBe("22");
  });
});

describe("prompt-cache figures from Converse, on every client wire", () => {
  // Converse's inputTokens leaves out what was read from and written to the cache: 10 + 20 + 30
  // input tokens, each charged once at the input price, and 6 output at 2: 72.
  const CACHED_USAGE = { inputTokens: 10, outputTokens: 6, totalTokens: 66, cacheReadInputTokens: 20, cacheWriteInputTokens: 30 };
  const cachedStream = () =>
    converseStream([
      { type: "messageStart", payload: { role: "assistant" } },
      { type: "contentBlockDelta", payload: { contentBlockIndex: 0, delta: { text: "Cached." } } },
      { type: "contentBlockStop", payload: { contentBlockIndex: 0 } },
      { type: "messageStop", payload: { stopReason: "end_turn" } },
      { type: "metadata", payload: { usage: CACHED_USAGE, metrics: { latencyMs: 40 } } },
    ]);

  test("a Messages client reads the cache write as cache_creation_input_tokens and the read as cache_read_input_tokens, whole and streamed; charged once", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({ json: converseAnswer([{ text: "Cached." }], "end_turn", CACHED_USAGE) }));
    const whole = await client.anthropic.messages.create({ model: "nova", max_tokens: 50, messages: [{ role: "user", content: "hi" }] });
    expect(whole.usage).toEqual({ input_tokens: 10, output_tokens: 6, cache_creation_input_tokens: 30, cache_read_input_tokens: 20 });
    expect(await client.spentUnits()).toBe("72");

    bedrock.answer(cachedStream);
    const streamed = await client.anthropic.messages.stream({ model: "nova", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }).finalMessage();
    expect(streamed.usage).toMatchObject({ input_tokens: 10, output_tokens: 6, cache_creation_input_tokens: 30, cache_read_input_tokens: 20 });
    expect(await client.spentUnits()).toBe("144");
  });

  test("a Responses client reads them in input_tokens_details, a Chat Completions client the read in prompt_tokens_details; input counts both", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({ json: converseAnswer([{ text: "Cached." }], "end_turn", CACHED_USAGE) }));
    const response = await client.openai.responses.create({ model: "nova", input: "hi" });
    expect(response.usage).toMatchObject({ input_tokens: 60, input_tokens_details: { cached_tokens: 20, cache_write_tokens: 30 }, output_tokens: 6, total_tokens: 66 });

    bedrock.answer(cachedStream);
    const final = await client.openai.responses.stream({ model: "nova", input: "hi" }).finalResponse();
    expect(final.usage).toMatchObject({ input_tokens: 60, input_tokens_details: { cached_tokens: 20, cache_write_tokens: 30 } });

    const completion = await client.openai.chat.completions.stream({ model: "nova", messages: [{ role: "user", content: "hi" }], stream_options: { include_usage: true } }).finalChatCompletion();
    // Chat Completions has no field for a cache write: prompt_tokens counts it.
    expect(completion.usage).toEqual({ prompt_tokens: 60, completion_tokens: 6, total_tokens: 66, prompt_tokens_details: { cached_tokens: 20 } });
    expect(await client.spentUnits()).toBe(String(3 * 72));
  });
});

describe("Bedrock's errors in the client's terms", () => {
  test("a ValidationException (400) reaches each client as a 400 with Bedrock's message, sent once, nothing charged", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => awsError(400, "ValidationException", "The model returned the following errors: messages: text field is blank"));
    const viaOpenAi = await client.openai.chat.completions.create({ model: "nova", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    const viaAnthropic = await client.anthropic.messages.create({ model: "nova", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);

    expect(viaOpenAi).toBeInstanceOf(OpenAI.BadRequestError);
    expect(viaOpenAi).toMatchObject({ status: 400, message: "400 The model returned the following errors: messages: text field is blank" });
    expect(viaAnthropic).toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error", message: "The model returned the following errors: messages: text field is blank" } } });
    expect(bedrock.received).toHaveLength(2);
    expect(await client.spentUnits()).toBe("0");
  });

  test("a ThrottlingException (429) is a 429 upstream_rate_limited the client backs off from, nothing charged", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => awsError(429, "ThrottlingException", "Too many requests, please wait before trying again."));
    const failure = await client.openai.responses.create({ model: "nova", input: "hi" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    expect(failure).toMatchObject({ status: 429, code: "upstream_rate_limited" });
    expect((failure as Error).message).toContain("Too many requests");
    expect(await client.spentUnits()).toBe("0");
  });

  test("a throttlingException frame before the first event is a 429; a validationException frame a 400", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => converseStream([{ exception: "throttlingException", message: "Too many tokens, please wait." }]));
    const throttled = await client.openai.chat.completions.create({ model: "nova", messages: [{ role: "user", content: "hi" }], stream: true }).catch((error: unknown) => error);
    expect(throttled).toMatchObject({ status: 429, code: "upstream_rate_limited" });

    bedrock.answer(() => converseStream([{ exception: "validationException", message: "maxTokens exceeds the model's limit" }]));
    const invalid = await client.anthropic.messages.create({ model: "nova", max_tokens: 5, messages: [{ role: "user", content: "hi" }], stream: true }).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 400, error: { error: { type: "invalid_request_error", message: "maxTokens exceeds the model's limit" } } });
    expect(await client.spentUnits()).toBe("0");
  });

  test("a modelStreamErrorException frame mid-stream ends the client's stream with its wire's error, after the text that came first; a credential it quotes is redacted", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() =>
      converseStream([
        { type: "messageStart", payload: { role: "assistant" } },
        { type: "contentBlockDelta", payload: { contentBlockIndex: 0, delta: { text: "Partial" } } },
        { exception: "modelStreamErrorException", message: `The model stream failed (session ${ENV_KEYS.sessionToken})` },
      ]),
    );
    const stream = await client.openai.chat.completions.create({ model: "nova", max_tokens: 10, messages: [{ role: "user", content: "hi" }], stream: true });
    const texts: string[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) texts.push(chunk.choices[0]?.delta.content ?? "");
    })().catch((error: unknown) => error);

    expect(texts.join("")).toBe("Partial");
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain("modelStreamErrorException: The model stream failed (session [redacted])");
    expectNoSecret(JSON.stringify((failure as InstanceType<typeof OpenAI.APIError>).error));
    // A stream failed midway is charged its reservation: at least the bound's 10 output tokens at 2 credits.
    expect(Number(await client.spentUnits())).toBeGreaterThanOrEqual(20);
  });
});
