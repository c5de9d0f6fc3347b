/**
 * The OpenAI wires — Chat Completions, Responses, Models — driven by the official `openai` client
 * over real HTTP, on the built-in models. Prices and the token rule: model-api-sdks-support.ts.
 */
import OpenAI from "openai";
import { COST_HEADER, ErrorEnvelope, Model } from "@gateway-keys/contract";
import { createTestClock, startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { call, responseUsage, useGateway } from "./helpers";
import { logRows, openaiFor, rejection, spentUnits } from "./model-api-sdks-support";

let gateway: TestGateway;
let keyId: string;
let openai: OpenAI;

useGateway((started) => {
  gateway = started;
});

beforeEach(async () => {
  const key = await gateway.createRegularKey({ name: "openai client" });
  keyId = key.keyId;
  openai = openaiFor(gateway, key.secret);
});

describe("chat.completions", () => {
  test("create answers the last user message with token usage, and x-gateway-cost-units carries the charge", async () => {
    const { data, response } = await openai.chat.completions
      .create({
        model: "echo-1",
        messages: [
          { role: "system", content: "Be terse." },
          { role: "user", content: "hello" },
          { role: "assistant", content: "hi" },
          { role: "user", content: "good morning" },
        ],
      })
      .withResponse();

    expect(data).toMatchObject({ object: "chat.completion", model: "echo-1" });
    expect(data.id).toMatch(/^chatcmpl_/);
    expect(data.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "good morning", refusal: null }, finish_reason: "stop", logprobs: null },
    ]);
    // "system: Be terse.\nuser: hello\nassistant: hi\nuser: good morning" is 15 tokens; 2 out.
    expect(data.usage).toEqual({ prompt_tokens: 15, completion_tokens: 2, total_tokens: 17 });
    // 15 × 0.001 + 2 × 0.002
    expect(response.headers.get(COST_HEADER)).toBe("0.019");
    expect(await spentUnits(gateway, keyId)).toBe("0.019");
  });

  test("a stream sends the role, one delta per token, then the finish reason, and no usage unless asked", async () => {
    const stream = await openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "hello, world" }], stream: true });

    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([{ role: "assistant", content: "" }, { content: "hello" }, { content: "," }, { content: " world" }, {}]);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason)).toEqual([null, null, null, null, "stop"]);
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk" && chunk.id === chunks[0]!.id && chunk.model === "echo-1")).toBe(true);
    expect(chunks.filter((chunk) => "usage" in chunk)).toEqual([]);
    // 3 tokens in, 3 out: 3 × 0.001 + 3 × 0.002.
    expect(await spentUnits(gateway, keyId)).toBe("0.009");
  });

  test("a stream with stream_options.include_usage carries usage null on every chunk and the totals on a last chunk without choices", async () => {
    const stream = await openai.chat.completions.create({
      model: "reverse-1",
      messages: [{ role: "user", content: "abc def" }],
      stream: true,
      stream_options: { include_usage: true },
    });

    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 });
    expect(chunks.slice(0, -1).map((chunk) => chunk.usage)).toEqual(chunks.slice(0, -1).map(() => null));
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("fed cba");
    // 2 × 0.002 + 2 × 0.004
    expect(await spentUnits(gateway, keyId)).toBe("0.012");
  });

  test("max_tokens cuts the answer after that many tokens with finish_reason length", async () => {
    const { data, response } = await openai.chat.completions
      .create({ model: "echo-1", messages: [{ role: "user", content: "one two three" }], max_tokens: 2 })
      .withResponse();

    expect(data.choices[0]).toMatchObject({ message: { content: "one two" }, finish_reason: "length" });
    expect(data.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    // 3 × 0.001 + 2 × 0.002
    expect(response.headers.get(COST_HEADER)).toBe("0.007");
  });

  test("a stream cut by max_completion_tokens ends with finish_reason length", async () => {
    const stream = await openai.chat.completions.create({
      model: "echo-1",
      messages: [{ role: "user", content: "one two three" }],
      max_completion_tokens: 1,
      stream: true,
    });

    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("one");
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe("length");
  });

  test("a stop sequence ends the answer before it with finish_reason stop", async () => {
    const answer = await openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "hello world" }], stop: ["wor", "xyz"] });

    expect(answer.choices[0]).toMatchObject({ message: { content: "hello " }, finish_reason: "stop" });
    expect(answer.usage).toEqual({ prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 });
  });
});

describe("responses", () => {
  test("create with a string input answers with output_text, status completed and token usage", async () => {
    const { data, response } = await openai.responses.create({ model: "reverse-1", input: "hello world" }).withResponse();

    expect(data).toMatchObject({ object: "response", status: "completed", model: "reverse-1", incomplete_details: null });
    expect(data.id).toMatch(/^resp_/);
    expect(data.output_text).toBe("dlrow olleh");
    expect(data.output[0]).toMatchObject({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "dlrow olleh" }] });
    expect(data.usage).toEqual(responseUsage(2, 2));
    // 2 × 0.002 + 2 × 0.004
    expect(response.headers.get(COST_HEADER)).toBe("0.012");
  });

  test("create with a message array, instructions and max_output_tokens stops at the bound with status incomplete", async () => {
    const { data, response } = await openai.responses
      .create({
        model: "echo-1",
        instructions: "Repeat after me.",
        input: [
          { role: "user", content: "one" },
          { role: "assistant", content: "one" },
          { role: "user", content: [{ type: "input_text", text: "two three four" }] },
        ],
        max_output_tokens: 2,
      })
      .withResponse();

    expect(data).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      instructions: "Repeat after me.",
      max_output_tokens: 2,
      output_text: "two three",
    });
    // "system: Repeat after me.\nuser: one\nassistant: one\nuser: two three four" is 17 tokens.
    expect(data.usage).toEqual(responseUsage(17, 2));
    // 17 × 0.001 + 2 × 0.002
    expect(response.headers.get(COST_HEADER)).toBe("0.021");
    expect(await spentUnits(gateway, keyId)).toBe("0.021");
  });

  test("stream() delivers the events in order, output_text deltas per token, and a finalResponse equal to the whole answer", async () => {
    const stream = openai.responses.stream({ model: "reverse-1", input: "abc def" });
    const events: { type: string; sequence_number: number }[] = [];
    const deltas: string[] = [];
    stream.on("event", (event) => events.push({ type: event.type, sequence_number: event.sequence_number }));
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));

    const final = await stream.finalResponse();

    expect(deltas).toEqual(["fed", " cba"]);
    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(final).toMatchObject({ status: "completed", output_text: "fed cba", usage: { input_tokens: 2, output_tokens: 2, total_tokens: 4 } });
    expect(await spentUnits(gateway, keyId)).toBe("0.012");
  });

  test("a stream stopped by max_output_tokens ends with response.incomplete and an incomplete finalResponse", async () => {
    const stream = openai.responses.stream({ model: "echo-1", input: "one two three", max_output_tokens: 1 });
    const types: string[] = [];
    stream.on("event", (event) => types.push(event.type));

    const final = await stream.finalResponse();

    expect(types.at(-1)).toBe("response.incomplete");
    expect(final).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, output_text: "one" });
  });
});

describe("models", () => {
  test("models.list() pages through every model, each with its family, pricing and max_output_tokens", async () => {
    const listed: OpenAI.Models.Model[] = [];
    for await (const model of openai.models.list()) listed.push(model);

    const raw = await call(gateway.baseUrl, "GET", "/v1/models");
    expect(listed.map((model) => model.id)).toEqual(raw.body.data.map((model: Model) => model.id));
    for (const model of listed) Model.strict().parse(model);
    const chat = listed.filter((model) => (model as unknown as Model).family === "chat") as unknown as Model[];
    expect(chat.map((model) => [model.id, model.pricing, model.max_output_tokens])).toEqual([
      ["echo-1", { input_units_per_million_tokens: "1000", output_units_per_million_tokens: "2000" }, 4096],
      ["reverse-1", { input_units_per_million_tokens: "2000", output_units_per_million_tokens: "4000" }, 4096],
      ["count-1", { input_units_per_million_tokens: "500", output_units_per_million_tokens: "1000" }, 4096],
      ["tools-1", { input_units_per_million_tokens: "1000", output_units_per_million_tokens: "2000" }, 4096],
    ]);
  });
});

describe("errors on the OpenAI wires", () => {
  test("an unknown model is a NotFoundError carrying the envelope: type, code model_not_found, param model", async () => {
    const error = await rejection(openai.chat.completions.create({ model: "gpt-nothing", messages: [{ role: "user", content: "x" }] }));

    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, type: "not_found_error", code: "model_not_found", param: "model" });
    expect(ErrorEnvelope.shape.error.strict().parse(error.error).message).toContain("GET /v1/models");
  });

  test("a key that does not exist is an AuthenticationError with code invalid_credentials", async () => {
    const stranger = openaiFor(gateway, "gwk_not-a-real-key");

    const error = await rejection(stranger.responses.create({ model: "echo-1", input: "x" }));

    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: "authentication_error", code: "invalid_credentials" });
  });

  test("a model outside the key's allow-list is a PermissionDeniedError with code model_not_allowed", async () => {
    const narrow = await gateway.createRegularKey({ modelPolicy: { mode: "allowList", modelIds: ["echo-1"] } });

    const error = await rejection(openaiFor(gateway, narrow.secret).responses.create({ model: "reverse-1", input: "x" }));

    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error).toMatchObject({ status: 403, type: "permission_error", code: "model_not_allowed", param: "model" });
  });

  test("n other than 1 is a BadRequestError naming n, and nothing is charged", async () => {
    const error = await rejection(openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "x" }], n: 2 }));

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, type: "invalid_request_error", code: "validation_failed", param: "n" });
    expect(await spentUnits(gateway, keyId)).toBe("0");
  });

  test.each([
    ["chat.completions max_tokens", () => openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "x" }], max_tokens: 4097 }), "max_tokens"],
    [
      "chat.completions max_completion_tokens",
      () => openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "x" }], max_completion_tokens: 4097 }),
      "max_completion_tokens",
    ],
    ["responses max_output_tokens", () => openai.responses.create({ model: "echo-1", input: "x", max_output_tokens: 4097 }), "max_output_tokens"],
  ])("%s above the model's max_output_tokens is a BadRequestError naming the field, and nothing is charged", async (_what, send, param) => {
    const error = await rejection(send());

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "validation_failed", param });
    expect(error.error.message).toContain(`${param}: must be at most 4096`);
    expect(await spentUnits(gateway, keyId)).toBe("0");
  });

  test("max_tokens and max_completion_tokens that differ are a BadRequestError naming max_tokens; equal ones are served", async () => {
    const error = await rejection(
      openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "x" }], max_tokens: 4097, max_completion_tokens: 5 }),
    );

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "validation_failed", param: "max_tokens" });
    expect(error.error.message).toContain("max_tokens: differs from max_completion_tokens");
    const same = await openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "a b c" }], max_tokens: 2, max_completion_tokens: 2 });
    expect(same.choices[0]!.finish_reason).toBe("length");
  });

  test("a model of another family is a BadRequestError naming model and the endpoint that serves it", async () => {
    const other = (await call(gateway.baseUrl, "GET", "/v1/models")).body.data.find((model: Model) => model.family !== "chat") as Model;

    const error = await rejection(openai.chat.completions.create({ model: other.id, messages: [{ role: "user", content: "x" }] }));

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "validation_failed", param: "model" });
    expect(error.error.message).toContain(`is a ${other.family} model; use /v1/`);
  });
});

describe("timestamps", () => {
  test("answers are stamped by the gateway's clock, like their log rows", async () => {
    const clock = createTestClock(Date.UTC(2030, 0, 1));
    const clocked = await startTestGateway({ storage: "memory", clock: clock.now });
    try {
      const key = await clocked.createRegularKey();
      const client = openaiFor(clocked, key.secret);

      const chat = await client.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "x" }] });
      const response = await client.responses.create({ model: "echo-1", input: "x" });

      const seconds = Date.UTC(2030, 0, 1) / 1000;
      expect((await logRows(clocked, key.keyId)).map((row) => row.createdAt)).toEqual(["2030-01-01T00:00:00.000Z", "2030-01-01T00:00:00.000Z"]);
      expect({ chat: chat.created, response: response.created_at }).toEqual({ chat: seconds, response: seconds });
    } finally {
      await clocked.stop();
    }
  });
});
