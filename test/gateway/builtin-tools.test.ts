/**
 * The built-in `tools-1` model calls tools on every wire, whole and streamed, so tool calling can be
 * exercised offline: it calls the declared tool with the prompt as its arguments, then answers with
 * the tool's result. Seen through the official clients' own parsers and stream helpers.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { TestGateway } from "@gateway-keys/testkit/test-gateway";
import { useGateway } from "./helpers";

let gateway: TestGateway;
useGateway((started) => {
  gateway = started;
});

const CITY = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

async function clients() {
  const key = await gateway.createRegularKey({ name: "tools" });
  return {
    openai: new OpenAI({ apiKey: key.secret, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key.secret, baseURL: gateway.baseUrl, maxRetries: 0 }),
  };
}

describe("Chat Completions", () => {
  test("tools-1 calls the declared tool with the prompt as its first property, then answers with the tool's result", async () => {
    const { openai } = await clients();
    const tools = [{ type: "function" as const, function: { name: "get_weather", parameters: CITY } }];
    const first = await openai.chat.completions.create({ model: "tools-1", messages: [{ role: "user", content: "Paris" }], tools });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(first.choices[0]!.message.content).toBeNull();
    expect(call).toMatchObject({ type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } });

    const second = await openai.chat.completions.create({
      model: "tools-1",
      messages: [{ role: "user", content: "Paris" }, first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "sunny, 21 °C" }],
      tools,
    });
    expect(second.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: "sunny, 21 °C" } });
  });

  test("streamed, the SDK's helper assembles the call from its argument deltas; tool_choice picks the tool", async () => {
    const { openai } = await clients();
    const tools = [
      { type: "function" as const, function: { name: "first", parameters: { type: "object" } } },
      { type: "function" as const, function: { name: "get_weather", parameters: CITY } },
    ];
    const runner = openai.chat.completions.stream({
      model: "tools-1",
      messages: [{ role: "user", content: '{"city":"Reykjavík","units":"metric"}' }],
      tools,
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    const deltas: string[] = [];
    runner.on("tool_calls.function.arguments.delta", (event) => deltas.push(event.arguments_delta));
    const final = await runner.finalChatCompletion();
    expect(deltas.length).toBeGreaterThan(1);
    expect(final.choices[0]!.message.tool_calls).toMatchObject([{ function: { name: "get_weather", arguments: '{"city":"Reykjavík","units":"metric"}' } }]);
  });

  test('tool_choice "none" and no tools both answer like echo-1', async () => {
    const { openai } = await clients();
    const none = await openai.chat.completions.create({ model: "tools-1", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "f" } }], tool_choice: "none" });
    const without = await openai.chat.completions.create({ model: "tools-1", messages: [{ role: "user", content: "hi" }] });
    expect([none.choices[0]!.message.content, without.choices[0]!.message.content]).toEqual(["hi", "hi"]);
  });
});

describe("Responses", () => {
  test("tools-1 answers with a function_call item, whole and streamed, and with text once given the output", async () => {
    const { openai } = await clients();
    const tools = [{ type: "function" as const, name: "get_weather", parameters: CITY, strict: true }];
    const whole = await openai.responses.create({ model: "tools-1", input: "Paris", tools });
    expect(whole.output).toMatchObject([{ type: "function_call", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" }]);

    const stream = openai.responses.stream({ model: "tools-1", input: "Paris", tools });
    const done: string[] = [];
    stream.on("response.function_call_arguments.done", (event) => done.push(event.arguments));
    const streamed = await stream.finalResponse();
    expect(done).toEqual(['{"city":"Paris"}']);
    expect(streamed.output).toMatchObject([{ type: "function_call", name: "get_weather", arguments: '{"city":"Paris"}' }]);

    const call = whole.output[0] as { call_id: string; name: string; arguments: string };
    const answered = await openai.responses.create({
      model: "tools-1",
      input: [{ role: "user", content: "Paris" }, { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: "function_call_output", call_id: call.call_id, output: "sunny" }],
      tools,
    });
    expect(answered.output_text).toBe("sunny");
  });
});

describe("Messages", () => {
  test("tools-1 answers with a tool_use block, whole and streamed (input_json_delta), and with text once given the tool_result", async () => {
    const { anthropic } = await clients();
    const tools = [{ name: "get_weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } }];
    const whole = await anthropic.messages.create({ model: "tools-1", max_tokens: 50, messages: [{ role: "user", content: "Paris" }], tools });
    expect(whole.stop_reason).toBe("tool_use");
    expect(whole.content).toMatchObject([{ type: "tool_use", name: "get_weather", input: { city: "Paris" } }]);

    const partial: string[] = [];
    const stream = anthropic.messages.stream({ model: "tools-1", max_tokens: 50, messages: [{ role: "user", content: "Paris" }], tools });
    stream.on("inputJson", (piece) => partial.push(piece));
    const streamed = await stream.finalMessage();
    expect(partial.join("")).toBe('{"city":"Paris"}');
    expect(streamed.content).toMatchObject([{ type: "tool_use", name: "get_weather", input: { city: "Paris" } }]);

    const use = whole.content[0] as { id: string };
    const answered = await anthropic.messages.create({
      model: "tools-1",
      max_tokens: 50,
      messages: [
        { role: "user", content: "Paris" },
        { role: "assistant", content: whole.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "sunny" }] },
      ],
      tools,
    });
    expect(answered.content).toEqual([{ type: "text", text: "sunny" }]);
    expect(answered.stop_reason).toBe("end_turn");
  });
});
