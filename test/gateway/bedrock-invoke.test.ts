/**
 * Amazon Bedrock's Anthropic models through InvokeModel / InvokeModelWithResponseStream (a
 * `bedrock` provider with `api: invoke-anthropic`): the Messages wire, so a Messages request is
 * relayed as sent — but for `model` (in the path) and `stream` (in the operation), with Bedrock's
 * `anthropic_version` and the client's `anthropic-beta` as `anthropic_beta` — and Chat
 * Completions and Responses are translated to it. Streams come back from the event-stream's
 * `chunk` frames as the Messages events they carry.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { awsError, encodeFrame, invokeStream } from "@gateway-keys/testkit/scripted-bedrock";
import { anthropicToolStream } from "./forwarding-support";
import { CLAUDE, clientsOf, ENV_KEYS, expectNoGatewayKey, modelPath, REGION, TITAN, useBedrock } from "./bedrock-support";

const forwarding = useBedrock();
const clients = (key: Parameters<typeof clientsOf>[1] = {}) => clientsOf({ provider: forwarding().bedrock, gateway: forwarding().gateway }, key);

const CITY_SCHEMA = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;
const UPSTREAM_MESSAGE = { id: "msg_bdrk_01", type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929" };

const messageAnswer = (content: object[], stopReason: string, usage: object) => ({ ...UPSTREAM_MESSAGE, content, stop_reason: stopReason, stop_sequence: null, usage });

/** Bedrock adds its invocation metrics to the last event; a client's SDK reads past them. */
const withMetrics = (events: ({ type: string } & Record<string, unknown>)[]) =>
  events.map((event) => (event.type === "message_stop" ? { ...event, "amazon-bedrock-invocationMetrics": { inputTokenCount: 10, outputTokenCount: 6, invocationLatency: 420, firstByteLatency: 180 } } : event));

describe("Messages relayed to InvokeModel", () => {
  test("the body goes as sent without model and stream, with anthropic_version bedrock-2023-05-31 and the client's betas; the answer's bytes come back untouched", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    const answer = messageAnswer([{ type: "text", text: "Bonjour." }], "end_turn", { input_tokens: 8, output_tokens: 3, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 });
    bedrock.answer(() => ({ json: answer }));
    const message = await client.anthropic.messages.create(
      {
        model: "claude-br",
        max_tokens: 20,
        system: [{ type: "text", text: "Speak French.", cache_control: { type: "ephemeral" } }],
        messages: [{ role: "user", content: "Hello" }],
        thinking: { type: "disabled" },
      },
      { headers: { "anthropic-beta": "context-1m-2025-08-07, fine-grained-tool-streaming-2025-05-14", "anthropic-version": "2023-06-01" } },
    );

    const received = bedrock.received[0]!;
    expect(received.url).toBe("/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke");
    expect(received.body).toEqual({
      max_tokens: 20,
      system: [{ type: "text", text: "Speak French.", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "Hello" }],
      thinking: { type: "disabled" },
      anthropic_version: "bedrock-2023-05-31",
      anthropic_beta: ["context-1m-2025-08-07", "fine-grained-tool-streaming-2025-05-14"],
    });
    expect(received.headers.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${ENV_KEYS.accessKeyId}/\\d{8}/${REGION}/bedrock/aws4_request, `));
    expect(received.headers["anthropic-version"]).toBeUndefined();
    expect(received.headers["anthropic-beta"]).toBeUndefined();
    expect(bedrock.refusals).toEqual([]);
    expectNoGatewayKey(received.headers, client.secret);

    expect(message).toEqual(answer);
    // Messages' input_tokens leaves out the cache read: 8 + 4 input, 3 output at 2.
    expect(await client.spentUnits()).toBe("18");
  });

  test("a streamed request with an image, relayed as sent: its tool call comes from the chunk frames as Messages events the SDK's stream assembles", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => invokeStream(withMetrics(anthropicToolStream(UPSTREAM_MESSAGE)), { gapMs: 2 }));
    const messages: Anthropic.MessageParam[] = [
      { role: "user", content: [{ type: "text", text: "Weather where this is?" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }] },
    ];
    const stream = client.anthropic.messages.stream({
      model: "claude-br",
      max_tokens: 50,
      messages,
      tools: [{ name: "get_weather", input_schema: CITY_SCHEMA as unknown as Anthropic.Tool.InputSchema }],
    });
    const pieces: string[] = [];
    stream.on("inputJson", (piece) => pieces.push(piece));
    const final = await stream.finalMessage();

    expect(bedrock.received[0]!.url).toBe(modelPath(CLAUDE, "invoke-with-response-stream"));
    expect(bedrock.received[0]!.body).toEqual({
      max_tokens: 50,
      messages,
      tools: [{ name: "get_weather", input_schema: CITY_SCHEMA }],
      anthropic_version: "bedrock-2023-05-31",
    });
    expect(pieces).toEqual(['{"city":', '"Paris"}']);
    expect(final).toMatchObject({ id: "msg_bdrk_01", stop_reason: "tool_use", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }], usage: { output_tokens: 6 } });
    expect(await client.spentUnits()).toBe("22");
  });

  test("an exception frame mid-stream ends the client's stream with an error event, after what came first", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    const start = anthropicToolStream(UPSTREAM_MESSAGE).slice(0, 2);
    bedrock.answer(() => invokeStream(start, { then: [{ exception: "modelStreamErrorException", message: "Model stream ended unexpectedly" }] }));
    const stream = client.anthropic.messages.stream({ model: "claude-br", max_tokens: 10, messages: [{ role: "user", content: "Paris?" }] });
    const failure = await stream.finalMessage().catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(JSON.stringify((failure as InstanceType<typeof Anthropic.APIError>).error)).toContain("modelStreamErrorException");
    expect(Number(await client.spentUnits())).toBeGreaterThanOrEqual(20);
  });

  test("a frame whose checksum does not hold is the provider's failure: a 502, nothing charged", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    const frame = Buffer.from(encodeFrame({ type: "chunk", payload: { bytes: Buffer.from(JSON.stringify(anthropicToolStream(UPSTREAM_MESSAGE)[0])).toString("base64") } }));
    // One payload byte changed after the CRCs were computed.
    frame.writeUInt8(frame.readUInt8(frame.length - 10) ^ 0x01, frame.length - 10);
    bedrock.answer(() => ({
      handle: (_request, response) => {
        response.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
        response.end(frame);
      },
    }));
    const failure = await client.anthropic.messages.create({ model: "claude-br", max_tokens: 5, messages: [{ role: "user", content: "hi" }], stream: true }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 502, error: { error: { type: "api_error" } } });
    expect(await client.spentUnits()).toBe("0");
  });

  test("a ValidationException reaches the client as a 400 in Anthropic's envelope; a throttled stream as a 429", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => awsError(400, "ValidationException", "messages.0.content.0.image.source.base64: image exceeds 5 MB maximum"));
    const invalid = await client.anthropic.messages.create({ model: "claude-br", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(Anthropic.BadRequestError);
    expect(invalid).toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error", message: "messages.0.content.0.image.source.base64: image exceeds 5 MB maximum" } } });

    bedrock.answer(() => invokeStream([], { then: [{ exception: "throttlingException", message: "Too many tokens, please wait before trying again." }] }));
    const throttled = await client.anthropic.messages.create({ model: "claude-br", max_tokens: 5, messages: [{ role: "user", content: "hi" }], stream: true }).catch((error: unknown) => error);
    expect(throttled).toBeInstanceOf(Anthropic.RateLimitError);
    expect(await client.spentUnits()).toBe("0");
  });
});

describe("Chat Completions and Responses translated to InvokeModel", () => {
  test("Chat Completions with an image and tools becomes the Messages body InvokeModel takes; tool_use comes back as tool_calls", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({
      json: messageAnswer([{ type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Lima" } }], "tool_use", { input_tokens: 15, output_tokens: 5 }),
    }));
    const completion = await client.openai.chat.completions.create({
      model: "claude-br",
      messages: [
        { role: "system", content: "Use tools." },
        { role: "user", content: [{ type: "text", text: "Where is this?" }, { type: "image_url", image_url: { url: "data:image/webp;base64,UklGRg==" } }] },
      ],
      tools: [{ type: "function", function: { name: "get_weather", parameters: CITY_SCHEMA } }],
      tool_choice: "required",
      max_tokens: 30,
    });

    expect(bedrock.received[0]!.url).toBe(modelPath(CLAUDE, "invoke"));
    expect(bedrock.received[0]!.body).toEqual({
      anthropic_version: "bedrock-2023-05-31",
      max_tokens: 30,
      system: "Use tools.",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Where is this?" },
            { type: "image", source: { type: "base64", media_type: "image/webp", data: "UklGRg==" } },
          ],
        },
      ],
      tools: [{ name: "get_weather", input_schema: CITY_SCHEMA }],
      tool_choice: { type: "any" },
    });
    expect(completion.choices[0]).toMatchObject({ finish_reason: "tool_calls", message: { tool_calls: [{ id: "toolu_2", function: { name: "get_weather", arguments: '{"city":"Lima"}' } }] } });
    expect(await client.spentUnits()).toBe("25");
  });

  test("a streamed Chat Completions tool call, and a streamed Responses answer, are read from the chunk frames", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => invokeStream(withMetrics(anthropicToolStream(UPSTREAM_MESSAGE))));
    const chat = await client.openai.chat.completions
      .stream({ model: "claude-br", messages: [{ role: "user", content: "Paris?" }], tools: [{ type: "function", function: { name: "get_weather", parameters: CITY_SCHEMA } }] })
      .finalChatCompletion();
    expect(chat.choices[0]).toMatchObject({ finish_reason: "tool_calls", message: { tool_calls: [{ id: "toolu_1", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] } });

    const response = await client.openai.responses.stream({ model: "claude-br", input: "Paris?", tools: [{ type: "function", name: "get_weather", parameters: CITY_SCHEMA, strict: true }] }).finalResponse();
    expect(response.output).toMatchObject([{ type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' }]);
    expect(bedrock.received.map((request) => request.url)).toEqual([modelPath(CLAUDE, "invoke-with-response-stream"), modelPath(CLAUDE, "invoke-with-response-stream")]);
    expect(await client.spentUnits()).toBe("44");
  });

  test("a Responses input image and function call round trip are carried as image, tool_use and tool_result blocks", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => ({ json: messageAnswer([{ type: "text", text: "Sunny." }], "end_turn", { input_tokens: 20, output_tokens: 2 }) }));
    const response = await client.openai.responses.create({
      model: "claude-br",
      input: [
        { role: "user", content: [{ type: "input_text", text: "Paris?" }, { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" }] },
        { type: "function_call", call_id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call_output", call_id: "toolu_1", output: "sunny" },
      ],
      tools: [{ type: "function", name: "get_weather", parameters: CITY_SCHEMA, strict: false }],
      max_output_tokens: 25,
    });

    expect(bedrock.received[0]!.body).toMatchObject({
      anthropic_version: "bedrock-2023-05-31",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Paris?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "sunny" }] }] },
      ],
    });
    expect(bedrock.received[0]!.body).not.toHaveProperty("model");
    expect(response.output_text).toBe("Sunny.");
    expect(await client.spentUnits()).toBe("24");
  });

  test("Bedrock's 400 reaches OpenAI clients as a 400 with its message; a mid-stream exception ends a Chat Completions stream with an error", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(() => awsError(400, "ValidationException", "max_tokens: 999999 > 64000, which is the maximum allowed"));
    const viaResponses = await client.openai.responses.create({ model: "claude-br", input: "hi" }).catch((error: unknown) => error);
    const viaChat = await client.openai.chat.completions.create({ model: "claude-br", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    for (const failure of [viaResponses, viaChat]) {
      expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
      expect(failure).toMatchObject({ status: 400, code: "upstream_rejected", message: "400 max_tokens: 999999 > 64000, which is the maximum allowed" });
    }

    bedrock.answer(() => invokeStream(anthropicToolStream(UPSTREAM_MESSAGE).slice(0, 2), { then: [{ exception: "internalServerException", message: "Internal error" }] }));
    const stream = await client.openai.chat.completions.create({ model: "claude-br", messages: [{ role: "user", content: "hi" }], stream: true });
    const broken = await (async () => {
      for await (const _ of stream);
    })().catch((error: unknown) => error);
    expect(broken).toBeInstanceOf(OpenAI.APIError);
    expect((broken as Error).message).toContain("internalServerException");
  });
});

describe("embeddings through InvokeModel (Titan Text Embeddings)", () => {
  const vectors: Record<string, number[]> = { "hello world": [0.25, -0.5, 0.125], bonjour: [0.75, 0, -0.0625] };
  const titanAnswers = (request: { body: unknown }) => {
    const { inputText } = request.body as { inputText: string };
    return { json: { embedding: vectors[inputText], inputTextTokenCount: inputText.split(" ").length + 1, embeddingsByType: { float: vectors[inputText] } } };
  };

  test("each text is one signed InvokeModel with Titan's body; the vectors come back as OpenAI's answer (base64, as the SDK asks), charged from Bedrock's token counts", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(titanAnswers);
    const answer = await client.openai.embeddings.create({ model: "titan", input: ["hello world", "bonjour"], dimensions: 256 });

    const received = [...bedrock.received].sort((a, b) => JSON.stringify(a.body).localeCompare(JSON.stringify(b.body)));
    expect(received.map((request) => [request.url, request.body])).toEqual([
      ["/model/amazon.titan-embed-text-v2%3A0/invoke", { inputText: "bonjour", dimensions: 256 }],
      ["/model/amazon.titan-embed-text-v2%3A0/invoke", { inputText: "hello world", dimensions: 256 }],
    ]);
    expect(bedrock.refusals).toEqual([]);
    expect(answer.data.map((item) => [item.index, item.embedding])).toEqual([
      [0, vectors["hello world"]],
      [1, vectors.bonjour],
    ]);
    // Titan counted 3 and 2 tokens.
    expect(answer.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    expect(answer.model).toBe(TITAN);
    expect(await client.spentUnits()).toBe("5");
  });

  test("on a key with a spend limit, Titan's token counts are charged in full, above the gateway's own count", async () => {
    const { bedrock } = forwarding();
    const client = await clients({ spendPolicy: { limitUnits: "1000" } });
    // Titan counts markers around each text: 15 tokens in all where the gateway counts 3.
    bedrock.answer((request) => {
      const { inputText } = request.body as { inputText: string };
      return { json: { embedding: [0.5], inputTextTokenCount: inputText.split(" ").length + 6, embeddingsByType: { float: [0.5] } } };
    });
    const { data, response } = await client.openai.embeddings.create({ model: "titan", input: ["hello world", "bonjour"] }).withResponse();

    expect(data.usage).toEqual({ prompt_tokens: 15, total_tokens: 15 });
    expect(response.headers.get("x-gateway-cost-units")).toBe("15");
    expect(await client.spentUnits()).toBe("15");
  });

  test("float vectors when asked; token input is refused naming input, nothing sent or charged", async () => {
    const { bedrock } = forwarding();
    const client = await clients();
    bedrock.answer(titanAnswers);
    const floats = await client.openai.embeddings.create({ model: "titan", input: "bonjour", encoding_format: "float" });
    expect(floats.data[0]!.embedding).toEqual(vectors.bonjour);
    expect(bedrock.received).toHaveLength(1);

    const tokens = await client.openai.embeddings.create({ model: "titan", input: [[101, 102]] }).catch((error: unknown) => error);
    expect(tokens).toMatchObject({ status: 400, code: "validation_failed", param: "input" });
    expect(bedrock.received).toHaveLength(1);
    expect(await client.spentUnits()).toBe("2");
  });
});

