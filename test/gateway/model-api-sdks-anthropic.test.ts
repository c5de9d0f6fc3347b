/**
 * The Messages wire (`POST /v1/messages`) driven by the official `@anthropic-ai/sdk` client over
 * real HTTP, on the built-in models: both credential headers, any `anthropic-version`, the stream
 * helper, and Anthropic's error body on this route. Prices and the token rule:
 * model-api-sdks-support.ts.
 */
import Anthropic from "@anthropic-ai/sdk";
import { AnthropicErrorBody, COST_HEADER } from "@gateway-keys/contract";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { useGateway } from "./helpers";
import { anthropicFor, rejection, spentUnits } from "./model-api-sdks-support";

let gateway: TestGateway;
let keyId: string;
let secret: string;
let anthropic: Anthropic;

useGateway((started) => {
  gateway = started;
});

beforeEach(async () => {
  const key = await gateway.createRegularKey({ name: "anthropic client" });
  keyId = key.keyId;
  secret = key.secret;
  anthropic = anthropicFor(gateway, { apiKey: secret });
});

const hello = { model: "echo-1", max_tokens: 50, messages: [{ role: "user" as const, content: "hello world" }] };

/** Asserts that `error` is the SDK's class for `status` and carries Anthropic's body with `type`; returns the message. */
function expectAnthropicError(error: any, Class: new (...args: any[]) => Error, status: number, type: string): string {
  expect(error).toBeInstanceOf(Class);
  expect(error.status).toBe(status);
  const body = AnthropicErrorBody.strict().parse(error.error);
  expect(body.error.type).toBe(type);
  return body.error.message;
}

describe("messages.create", () => {
  test("with x-api-key answers the last user message with stop_reason end_turn, token usage and its charge", async () => {
    const { data, response } = await anthropic.messages.create({ ...hello, system: "Be terse." }).withResponse();

    expect(data).toMatchObject({ type: "message", role: "assistant", model: "echo-1", stop_reason: "end_turn", stop_sequence: null });
    expect(data.id).toMatch(/^msg_/);
    expect(data.content).toEqual([{ type: "text", text: "hello world" }]);
    // "system: Be terse.\nuser: hello world" is 9 tokens; 2 out.
    expect(data.usage).toEqual({ input_tokens: 9, output_tokens: 2 });
    // 9 × 0.001 + 2 × 0.002
    expect(response.headers.get(COST_HEADER)).toBe("0.013");
    expect(await spentUnits(gateway, keyId)).toBe("0.013");
  });

  test("with Authorization: Bearer (authToken) answers like x-api-key", async () => {
    const bearer = anthropicFor(gateway, { authToken: secret });

    const answer = await bearer.messages.create(hello);

    expect(answer.content).toEqual([{ type: "text", text: "hello world" }]);
    expect(await spentUnits(gateway, keyId)).toBe("0.006");
  });

  test("any anthropic-version header is accepted", async () => {
    const future = anthropicFor(gateway, { apiKey: secret }, { "anthropic-version": "2099-12-31" });

    await expect(future.messages.create(hello)).resolves.toMatchObject({ stop_reason: "end_turn" });
  });

  test("max_tokens cuts the answer with stop_reason max_tokens", async () => {
    const answer = await anthropic.messages.create({ model: "reverse-1", max_tokens: 1, messages: [{ role: "user", content: "one two three" }] });

    expect(answer).toMatchObject({ content: [{ type: "text", text: "eerht" }], stop_reason: "max_tokens", stop_sequence: null });
    expect(answer.usage).toEqual({ input_tokens: 3, output_tokens: 1 });
    // 3 × 0.002 + 1 × 0.004
    expect(await spentUnits(gateway, keyId)).toBe("0.01");
  });

  test("a stop sequence ends the answer before it with stop_reason stop_sequence naming the sequence", async () => {
    const answer = await anthropic.messages.create({ ...hello, stop_sequences: ["zzz", "wor"] });

    expect(answer).toMatchObject({ content: [{ type: "text", text: "hello " }], stop_reason: "stop_sequence", stop_sequence: "wor" });
    expect(answer.usage).toEqual({ input_tokens: 2, output_tokens: 1 });
  });
});

describe("messages.stream", () => {
  test("emits the events in order, a text event per token, and a finalMessage equal to the whole answer", async () => {
    const stream = anthropic.messages.stream({ ...hello, messages: [{ role: "user", content: "one, two" }] });
    const types: string[] = [];
    const texts: string[] = [];
    stream.on("streamEvent", (event) => types.push(event.type));
    stream.on("text", (text) => texts.push(text));

    const final = await stream.finalMessage();

    expect(texts).toEqual(["one", ",", " two"]);
    expect(types).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(final).toMatchObject({ role: "assistant", model: "echo-1", content: [{ type: "text", text: "one, two" }], stop_reason: "end_turn", stop_sequence: null });
    expect(final.usage).toEqual({ input_tokens: 3, output_tokens: 3 });
    // 3 × 0.001 + 3 × 0.002
    expect(await spentUnits(gateway, keyId)).toBe("0.009");
  });

  test("a stream stopped by a stop sequence ends with stop_reason stop_sequence in its finalMessage", async () => {
    const stream = anthropic.messages.stream({ ...hello, stop_sequences: ["wor"] });

    const final = await stream.finalMessage();

    expect(final).toMatchObject({ content: [{ type: "text", text: "hello " }], stop_reason: "stop_sequence", stop_sequence: "wor" });
    expect(final.usage).toEqual({ input_tokens: 2, output_tokens: 1 });
  });

  test("a stream stopped by max_tokens ends with stop_reason max_tokens in its finalMessage", async () => {
    const stream = anthropic.messages.stream({ ...hello, max_tokens: 1 });

    const final = await stream.finalMessage();

    expect(final).toMatchObject({ content: [{ type: "text", text: "hello" }], stop_reason: "max_tokens" });
  });
});

describe("errors on the Messages wire, in Anthropic's body", () => {
  test("an unknown model is a NotFoundError with error.type not_found_error", async () => {
    const error = await rejection(anthropic.messages.create({ ...hello, model: "claude-nothing" }));

    expect(expectAnthropicError(error, Anthropic.NotFoundError, 404, "not_found_error")).toContain('No model "claude-nothing"');
  });

  test("a key whose spend limit cannot cover the reservation is a PaymentRequiredError (402) with error.type billing_error", async () => {
    // 2 × 0.001 + 50 × 0.002 = 0.102 reserved; the limit is 0.1.
    const poor = await gateway.createRegularKey({ spendPolicy: { limitUnits: "0.1" } });

    const error = await rejection(anthropicFor(gateway, { apiKey: poor.secret }).messages.create(hello));

    expect(expectAnthropicError(error, Anthropic.PaymentRequiredError, 402, "billing_error")).toContain("0.102");
    expect(await spentUnits(gateway, poor.keyId)).toBe("0");
  });

  test("a key that does not exist is an AuthenticationError with error.type authentication_error", async () => {
    const error = await rejection(anthropicFor(gateway, { apiKey: "gwk_not-a-real-key" }).messages.create(hello));

    expectAnthropicError(error, Anthropic.AuthenticationError, 401, "authentication_error");
  });

  test("a provisioning key is a PermissionDeniedError with error.type permission_error", async () => {
    const error = await rejection(anthropicFor(gateway, { apiKey: gateway.provisioningKey }).messages.create(hello));

    expectAnthropicError(error, Anthropic.PermissionDeniedError, 403, "permission_error");
  });

  test("max_tokens above the model's max_output_tokens is a BadRequestError whose message names max_tokens, and nothing is charged", async () => {
    const error = await rejection(anthropic.messages.create({ ...hello, max_tokens: 4097 }));

    expect(expectAnthropicError(error, Anthropic.BadRequestError, 400, "invalid_request_error")).toContain("max_tokens: must be at most 4096");
    expect(await spentUnits(gateway, keyId)).toBe("0");
  });

  test("an empty messages array is a BadRequestError whose message names messages", async () => {
    const error = await rejection(anthropic.messages.create({ ...hello, messages: [] }));

    expect(expectAnthropicError(error, Anthropic.BadRequestError, 400, "invalid_request_error")).toContain("messages: must hold at least one message");
  });
});
