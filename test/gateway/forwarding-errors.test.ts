/**
 * A provider's errors in the client's terms: its refusal of the request itself reaches the client
 * with its status and reason (so the client's SDK does not retry it), a 429 with its Retry-After
 * once no route is left, a refusal of the gateway's own credentials as a 502 that is never the
 * client's fault — and nothing is charged for a request no provider answered.
 */
import OpenAI from "openai";
import { clientsOf, PRICING, PROVIDER_KEY, useForwarding } from "./forwarding-support";

const forwarding = useForwarding([
  // Two routes to the same scripted provider; the upstream model name tells the script which answers.
  { id: "first-limited", family: "chat", routes: [{ provider: "oai", model: "limited" }, { provider: "ant", model: "healthy" }], pricing: PRICING, maxOutputTokens: 100 },
  { id: "both-limited", family: "chat", routes: [{ provider: "oai", model: "limited" }, { provider: "oai", model: "limited-too" }], pricing: PRICING, maxOutputTokens: 100 },
]);

const openAiRefusal = {
  error: { message: "Invalid schema for function 'get_weather': 'object' is not valid under any of the given schemas.", type: "invalid_request_error", param: "tools[0].function.parameters", code: "invalid_function_parameters" },
};

test("an OpenAI-wire provider's 400 reaches the client as a 400 with its message, type, code and param, and the client's SDK sends it once", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding(), {}, 2);
  provider.answer(() => ({ status: 400, json: openAiRefusal }));
  const failure = await client.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);

  expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
  expect(failure).toMatchObject({ status: 400, type: "invalid_request_error", code: "invalid_function_parameters", param: "tools[0].function.parameters" });
  expect((failure as InstanceType<typeof OpenAI.APIError>).error).toEqual(openAiRefusal.error);
  expect(provider.received).toHaveLength(1);
  expect(await client.spentUnits()).toBe("0");
});

test.each([404, 413, 422])("a provider's %i reaches the client with that status and the provider's message", async (status) => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding(), {}, 2);
  provider.answer(() => ({ status, json: { error: { message: `refused with ${status}`, type: "invalid_request_error", code: null } } }));
  const failure = await client.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
  expect(failure).toMatchObject({ status, message: `${status} refused with ${status}` });
  expect(provider.received).toHaveLength(1);
});

test("an Anthropic-wire provider's 400 reaches an OpenAI client translated, and an Anthropic client in Anthropic's body", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  provider.answer(() => ({ status: 400, json: { type: "error", error: { type: "invalid_request_error", message: "messages.0.content: image too large" } } }));
  const viaOpenAi = await client.openai.chat.completions.create({ model: "claude", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
  expect(viaOpenAi).toMatchObject({ status: 400, type: "invalid_request_error", code: "upstream_rejected", message: "400 messages.0.content: image too large" });

  const viaAnthropic = await client.anthropic.messages.create({ model: "claude", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
  expect(viaAnthropic).toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error", message: "messages.0.content: image too large" } } });
  expect(await client.spentUnits()).toBe("0");
});

test("a provider credential quoted in an error message is redacted before it reaches the client", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  provider.answer(() => ({ status: 400, json: { error: { message: `Key ${PROVIDER_KEY} may not use this model`, type: "invalid_request_error" } } }));
  const failure = await client.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
  expect((failure as Error).message).toBe("400 Key [redacted] may not use this model");
  expect(JSON.stringify((failure as InstanceType<typeof OpenAI.APIError>).error)).not.toContain(PROVIDER_KEY);
});

test("a 429 on the last route reaches the client as a 429 with the provider's Retry-After, and nothing is charged", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  provider.answer(() => ({ status: 429, json: { error: { message: "slow down", type: "rate_limit_error" } }, headers: { "retry-after": "7" } }));
  const failure = await client.openai.chat.completions.create({ model: "both-limited", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);

  expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
  expect(failure).toMatchObject({ status: 429, code: "upstream_rate_limited" });
  expect((failure as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after")).toBe("7");
  // Both routes were tried, in order.
  expect(provider.received.map((request) => (request.body as { model: string }).model)).toEqual(["limited", "limited-too"]);
  expect(await client.spentUnits()).toBe("0");
});

test("a 429 on the first route falls back to the next, even across wires, and the answer is charged once", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  provider.answer((request) =>
    (request.body as { model: string }).model === "limited"
      ? { status: 429, json: { error: { message: "slow down" } }, headers: { "retry-after": "1" } }
      : { json: { id: "msg", type: "message", role: "assistant", model: "healthy", content: [{ type: "text", text: "fine" }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 2, output_tokens: 1 } } },
  );
  const completion = await client.openai.chat.completions.create({ model: "first-limited", messages: [{ role: "user", content: "hi" }] });
  expect(completion.choices[0]!.message.content).toBe("fine");
  expect(provider.received.map((request) => request.path)).toEqual(["/v1/chat/completions", "/v1/messages"]);
  expect(await client.spentUnits()).toBe("4");
});

test.each([401, 403])("a provider refusing the gateway's credentials (%i) is a 502 naming the provider, never the client's fault", async (status) => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  provider.answer(() => ({ status, json: { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } } }));
  const failure = await client.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
  expect(failure).toMatchObject({ status: 502, code: "upstream_failed" });
  expect((failure as Error).message).toContain("The provider oai refused the gateway's own credentials");
  expect(await client.spentUnits()).toBe("0");
});

test("a provider's 5xx is a 502 that names the provider; its body is not quoted", async () => {
  const { provider } = forwarding();
  const client = await clientsOf(forwarding());
  provider.answer(() => ({ status: 503, text: "<html>upstream connect error</html>" }));
  const failure = await client.anthropic.messages.create({ model: "claude", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
  expect(failure).toMatchObject({ status: 502, error: { type: "error", error: { type: "api_error", message: "The provider ant answered 503; the request was not completed." } } });
  expect(await client.spentUnits()).toBe("0");
});
