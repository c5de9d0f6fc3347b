/**
 * Metering on the text wires, driven by the official clients: the exact charge of each call in
 * the key's spentUnits, the usage summary and the request log; the logging policy; streams refused
 * for spend before their first byte; a stream the client cuts charged its reservation; concurrent
 * streams never overshooting a spend limit. Prices and the token rule: model-api-sdks-support.ts.
 * The reservation is cost(input tokens, the request's bound on output tokens — the model's 4096
 * when it sets none).
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { COST_HEADER } from "@gateway-keys/contract";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { accountClient, useGateway } from "./helpers";
import { anthropicFor, logRows, openaiFor, rejection, settledRows, spentUnits, words } from "./model-api-sdks-support";

let gateway: TestGateway;
let owners = 0;

useGateway((started) => {
  gateway = started;
});

/** A key of a fresh owner, so the owner's usage summary and metrics hold this test's requests only. */
async function keyOfFreshOwner(body: Parameters<TestGateway["createRegularKey"]>[0] = {}) {
  const provisioningKey = await gateway.newProvisioningKey(`metering-${++owners}`);
  const key = await gateway.createRegularKey(body, { provisioningKey });
  return {
    key,
    account: accountClient(gateway, provisioningKey),
    spent: () => spentUnits(gateway, key.keyId, provisioningKey),
    rows: () => logRows(gateway, key.keyId, provisioningKey),
    settled: (count: number) => settledRows(gateway, key.keyId, count, provisioningKey),
  };
}

const storeBoth = { storeRequest: true, storeResponse: true, retentionDays: 30 };

describe("charges", () => {
  test("each call's exact charge shows in its cost header, the key's spentUnits, the usage summary and the request log", async () => {
    const { key, account, spent, rows } = await keyOfFreshOwner({ loggingPolicy: storeBoth });
    const openai = openaiFor(gateway, key.secret);
    const anthropic = anthropicFor(gateway, { apiKey: key.secret });

    // 2 × 0.001 + 2 × 0.002
    const chat = await openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "hello world" }] }).withResponse();
    // 2 × 0.002 + 2 × 0.004
    const response = await openai.responses.create({ model: "reverse-1", input: "abc def" }).withResponse();
    // "2 characters, 1 words" is 5 tokens: 1 × 0.0005 + 5 × 0.001
    const message = await anthropic.messages.create({ model: "count-1", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).withResponse();

    expect([chat, response, message].map((answer) => answer.response.headers.get(COST_HEADER))).toEqual(["0.006", "0.012", "0.0055"]);
    expect(await spent()).toBe("0.0235");
    const usage = (await account.usage()).body;
    expect(usage).toMatchObject({ requests: 3, spentUnits: "0.0235", byKey: [{ keyId: key.keyId, requests: 3, spentUnits: "0.0235" }] });
    expect(usage.byModel).toEqual(
      expect.arrayContaining([
        { model: "echo-1", requests: 1, spentUnits: "0.006" },
        { model: "reverse-1", requests: 1, spentUnits: "0.012" },
        { model: "count-1", requests: 1, spentUnits: "0.0055" },
      ]),
    );
    expect(usage.byModel).toHaveLength(3);
    const logged = await rows();
    expect(logged.map(({ model, status, costUnits, request, response: answer }) => ({ model, status, costUnits, request, response: answer }))).toEqual([
      { model: "count-1", status: 200, costUnits: "0.0055", request: { input: "hi" }, response: { text: "2 characters, 1 words" } },
      { model: "reverse-1", status: 200, costUnits: "0.012", request: { input: "abc def" }, response: { text: "fed cba" } },
      { model: "echo-1", status: 200, costUnits: "0.006", request: { input: "hello world" }, response: { text: "hello world" } },
    ]);
  });

  test.each([
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ])("a streamed answer's log row keeps the prompt only if storeRequest (%s) and the answer only if storeResponse (%s)", async (storeRequest, storeResponse) => {
    const { key, rows } = await keyOfFreshOwner({ loggingPolicy: { storeRequest, storeResponse, retentionDays: 30 } });
    const anthropic = anthropicFor(gateway, { apiKey: key.secret });

    await anthropic.messages.stream({ model: "echo-1", max_tokens: 50, system: "Be terse.", messages: [{ role: "user", content: "hello world" }] }).finalMessage();

    const [row, ...others] = await rows();
    expect(others).toEqual([]);
    // "system: Be terse.\nuser: hello world": 9 × 0.001 + 2 × 0.002
    expect(row).toMatchObject({
      model: "echo-1",
      status: 200,
      costUnits: "0.013",
      request: storeRequest ? { input: "system: Be terse.\nuser: hello world" } : null,
      response: storeResponse ? { text: "hello world" } : null,
    });
  });
});

/** Starts a stream on one wire; resolves with its text, or rejects with the SDK's error. */
type StreamCall = (openai: OpenAI, anthropic: Anthropic) => Promise<string>;

const STREAMS_OF_HELLO: [string, StreamCall][] = [
  [
    "chat.completions",
    async (openai) => {
      const stream = await openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: "hello" }], max_tokens: 1, stream: true });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      return text;
    },
  ],
  ["responses.stream", async (openai) => (await openai.responses.stream({ model: "echo-1", input: "hello", max_output_tokens: 1 }).finalResponse()).output_text],
  [
    "messages.stream",
    async (_openai, anthropic) => anthropic.messages.stream({ model: "echo-1", max_tokens: 1, messages: [{ role: "user", content: "hello" }] }).finalText(),
  ],
];

describe("streams and the spend limit", () => {
  test.each(STREAMS_OF_HELLO)("%s refused for spend is refused before its first byte: the call rejects with 402 and nothing is charged", async (_wire, start) => {
    // "hello" with a bound of 1 output token reserves 1 × 0.001 + 1 × 0.002 = 0.003; the limit is 0.002.
    const { key, spent, rows } = await keyOfFreshOwner({ spendPolicy: { limitUnits: "0.002" } });

    const error = await rejection(start(openaiFor(gateway, key.secret), anthropicFor(gateway, { apiKey: key.secret })));

    expect(error.status).toBe(402);
    expect(error.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await spent()).toBe("0");
    expect((await rows()).map(({ status, costUnits }) => ({ status, costUnits }))).toEqual([{ status: 402, costUnits: "0" }]);
  });

  test("64 concurrent streams on the three wires never overshoot a small limit: exactly as many succeed as it pays for", async () => {
    // Each stream reserves and costs exactly 0.003; 0.03 pays for 10 of them.
    const { key, account, spent } = await keyOfFreshOwner({ spendPolicy: { limitUnits: "0.03" } });
    const openai = openaiFor(gateway, key.secret);
    const anthropic = anthropicFor(gateway, { apiKey: key.secret });

    const outcomes = await Promise.allSettled(Array.from({ length: 64 }, (_, index) => STREAMS_OF_HELLO[index % 3]![1](openai, anthropic)));

    const served = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    expect(served).toHaveLength(10);
    expect(served.map((outcome) => outcome.value)).toEqual(served.map(() => "hello"));
    expect(refused.map((outcome) => outcome.reason.status)).toEqual(refused.map(() => 402));
    expect(await spent()).toBe("0.03");
    expect((await account.usage()).body).toMatchObject({ requests: 10, spentUnits: "0.03" });
    expect((await account.metrics()).body.requests).toEqual({ total: 64, succeeded: 10, rejected: 54 });
  });
});

/** Starts a long stream, aborts it after its third piece of text, and resolves once the client has stopped; returns the pieces seen. */
type CutStream = (openai: OpenAI, anthropic: Anthropic, input: string) => Promise<number>;

const CUT_STREAMS: [string, CutStream, string][] = [
  [
    "chat.completions without max_tokens",
    async (openai, _anthropic, input) => {
      const stream = await openai.chat.completions.create({ model: "echo-1", messages: [{ role: "user", content: input }], stream: true });
      let pieces = 0;
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content && ++pieces === 3) stream.controller.abort();
      }
      return pieces;
    },
    // 3000 × 0.001 + 4096 × 0.002
    "11.192",
  ],
  [
    "responses.stream with max_output_tokens 4000",
    async (openai, _anthropic, input) => {
      const stream = openai.responses.stream({ model: "echo-1", input, max_output_tokens: 4000 });
      const done = stream.done();
      let pieces = 0;
      stream.on("response.output_text.delta", () => {
        if (++pieces === 3) stream.abort();
      });
      expect(await rejection(done)).toBeInstanceOf(OpenAI.APIUserAbortError);
      return pieces;
    },
    // 3000 × 0.001 + 4000 × 0.002
    "11",
  ],
  [
    "messages.stream with max_tokens 3500",
    async (_openai, anthropic, input) => {
      const stream = anthropic.messages.stream({ model: "echo-1", max_tokens: 3500, messages: [{ role: "user", content: input }] });
      const done = stream.done();
      let pieces = 0;
      stream.on("text", () => {
        if (++pieces === 3) stream.abort();
      });
      expect(await rejection(done)).toBeInstanceOf(Anthropic.APIUserAbortError);
      return pieces;
    },
    // 3000 × 0.001 + 3500 × 0.002
    "10",
  ],
];

describe("a stream the client cuts", () => {
  test.each(CUT_STREAMS)("%s aborted midway is charged exactly its reservation", async (_wire, cut, reservation) => {
    const { key, spent, settled } = await keyOfFreshOwner();
    // 3000 tokens in; echo-1 would answer 3000 tokens, far more than the client reads.
    const pieces = await cut(openaiFor(gateway, key.secret), anthropicFor(gateway, { apiKey: key.secret }), words(3000));

    expect(pieces).toBeLessThan(3000);
    const [row] = await settled(1);
    expect(row).toMatchObject({ model: "echo-1", status: 200, costUnits: reservation });
    expect(await spent()).toBe(reservation);
  });
});
