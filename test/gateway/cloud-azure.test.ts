/**
 * Azure OpenAI as a route like any other: a scripted Azure resource (testkit/scripted-azure.ts)
 * that refuses a request without `api-version`, with a wrong `api-key` or to a deployment it does
 * not have, reached by the official clients on all three wires — Chat Completions and Responses
 * relayed, Messages translated — whole, streamed, with tools, images and errors; embeddings and
 * images forwarded; each answer charged from Azure's usage; its key never reaching a client.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { toFile } from "openai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { REPO_ROOT } from "@gateway-keys/testkit/repo-root";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startScriptedAzure, startScriptedManagedIdentity, type ScriptedManagedIdentity } from "@gateway-keys/testkit/scripted-azure";
import type { ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { chatAnswer, clientsOf, expectNoGatewayKey, namedEvents, PRICING } from "./forwarding-support";

const KEY_ENV = "GATEWAY_TEST_AZURE_KEY";
const AZURE_KEY = "azure-key-0123456789abcdef0123";
const WRONG_KEY_ENV = "GATEWAY_TEST_AZURE_WRONG_KEY";
const API_VERSION = "2024-10-21";
const CHAT_PATH = "/openai/deployments/gpt-4o-prod/chat/completions";

let azure: ScriptedProvider;
let identity: ScriptedManagedIdentity;
let gateway: TestGateway;
beforeAll(async () => {
  process.env[KEY_ENV] = AZURE_KEY;
  process.env[WRONG_KEY_ENV] = "not-the-resource-key-00000000";
  // DefaultAzureCredential finds an App Service managed identity by these two variables.
  identity = await startScriptedManagedIdentity();
  process.env.IDENTITY_ENDPOINT = identity.endpoint;
  process.env.IDENTITY_HEADER = identity.header;
  azure = await startScriptedAzure({ apiKey: AZURE_KEY, bearerTokens: () => identity.issued.map((issued) => issued.token), deployments: ["gpt-4o-prod", "embed-prod", "image-prod", "whisper-prod"] });
  const chat = (id: string, routes: object[]) => ({ id, family: "chat", routes, pricing: PRICING, maxOutputTokens: 100 });
  const config = GatewayConfig.parse({
    providers: {
      azure: { kind: "azure-openai", endpoint: azure.origin, apiVersion: API_VERSION, apiKeyEnv: KEY_ENV, timeoutMs: 2000 },
      "azure-v1": { kind: "azure-openai", endpoint: azure.origin, api: "v1", apiKeyEnv: KEY_ENV, timeoutMs: 2000 },
      "azure-entra": { kind: "azure-openai", endpoint: azure.origin, api: "v1", entraId: true, timeoutMs: 5000 },
      "azure-wrong-key": { kind: "azure-openai", endpoint: azure.origin, apiVersion: API_VERSION, apiKeyEnv: WRONG_KEY_ENV, timeoutMs: 2000 },
    },
    models: [
      chat("azure-gpt", [{ provider: "azure", model: "gpt-4o-prod" }]),
      chat("azure-v1-gpt", [{ provider: "azure-v1", model: "gpt-4o-prod" }]),
      chat("azure-entra-gpt", [{ provider: "azure-entra", model: "gpt-4o-prod" }]),
      chat("azure-fallback", [{ provider: "azure-wrong-key", model: "gpt-4o-prod" }, { provider: "azure", model: "gpt-4o-prod" }]),
      chat("azure-wrong-key-only", [{ provider: "azure-wrong-key", model: "gpt-4o-prod" }]),
      chat("azure-missing-deployment", [{ provider: "azure", model: "no-such-deployment" }]),
      { id: "azure-embed", family: "embeddings", routes: [{ provider: "azure", model: "embed-prod" }], pricing: { inputUnitsPerMillionTokens: "1000000" } },
      { id: "azure-listen", family: "transcription", routes: [{ provider: "azure", model: "whisper-prod" }], pricing: { unitsPerMinute: "60" } },
      { id: "azure-draw", family: "images", routes: [{ provider: "azure", model: "image-prod" }], pricing: { unitsPerImage: { "1024x1024": "5" } } },
    ],
  });
  gateway = await startTestGateway({ storage: "memory", config });
});
beforeEach(() => void azure.received.splice(0));
afterAll(async () => {
  await gateway?.stop();
  await azure?.close();
  await identity?.close();
  delete process.env.IDENTITY_ENDPOINT;
  delete process.env.IDENTITY_HEADER;
  delete process.env[KEY_ENV];
  delete process.env[WRONG_KEY_ENV];
});

const clients = (key: Parameters<typeof clientsOf>[1] = {}) => clientsOf({ provider: azure, gateway }, key);

/** Azure's stream opens with a chunk of content filter results and no choices. */
const filterChunk = { id: "", object: "", created: 0, model: "", choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] };
const chunk = (delta: object, finish: string | null = null) => ({ id: "chatcmpl-az", object: "chat.completion.chunk", created: 1, model: "gpt-4o-2024-11-20", choices: [{ index: 0, delta, finish_reason: finish }] });
const usageChunk = (prompt: number, completion: number) => ({ id: "chatcmpl-az", object: "chat.completion.chunk", created: 1, model: "gpt-4o-2024-11-20", choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } });
const TOOLS = [{ type: "function" as const, function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];

describe("Chat Completions to Azure (relayed)", () => {
  test("a whole answer: the deployment's path with api-version, the api-key header and never the client's key; charged from Azure's usage", async () => {
    const client = await clients();
    azure.answer(() => ({ json: chatAnswer({ role: "assistant", content: "Hello from Azure" }, "stop", { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }) }));
    const { data, response } = await client.openai.chat.completions.create({ model: "azure-gpt", messages: [{ role: "user", content: "hi" }], temperature: 0.5 }).withResponse();

    const received = azure.received[0]!;
    expect([received.path, received.query]).toEqual([CHAT_PATH, { "api-version": API_VERSION }]);
    expect(received.headers["api-key"]).toBe(AZURE_KEY);
    expect(received.headers.authorization).toBeUndefined();
    expectNoGatewayKey(received.headers, client.secret);
    expect(received.body).toEqual({ model: "gpt-4o-prod", messages: [{ role: "user", content: "hi" }], temperature: 0.5 });
    expect(data.choices[0]!.message.content).toBe("Hello from Azure");
    expect(response.headers.get("x-gateway-cost-units")).toBe("13");
    expect(await client.spentUnits()).toBe("13");
  });

  test("a stream, read by the SDK's own parser past Azure's content-filter chunk, charged from its usage chunk", async () => {
    const client = await clients();
    azure.answer(() => ({ events: [filterChunk, chunk({ role: "assistant", content: "" }), chunk({ content: "Hel" }), chunk({ content: "lo" }), chunk({}, "stop"), usageChunk(5, 2), "[DONE]"].map((data) => ({ data })) }));
    const stream = await client.openai.chat.completions.create({ model: "azure-gpt", messages: [{ role: "user", content: "hi" }], stream: true });
    let text = "";
    for await (const part of stream) text += part.choices[0]?.delta.content ?? "";

    expect(text).toBe("Hello");
    expect(azure.received[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(await client.spentUnits()).toBe("9");
  });

  test("a tool call round trip with an image part: the call comes back, its result goes to Azure as sent", async () => {
    const client = await clients();
    const call = { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } };
    azure.answer(() => ({ json: chatAnswer({ role: "assistant", content: null, tool_calls: [call] }, "tool_calls", { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 }) }));
    const user = { role: "user" as const, content: [{ type: "text" as const, text: "Weather where this is?" }, { type: "image_url" as const, image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "low" as const } }] };
    const first = await client.openai.chat.completions.create({ model: "azure-gpt", messages: [user], tools: TOOLS });
    expect(first.choices[0]!.message.tool_calls).toEqual([call]);

    azure.answer(() => ({ json: chatAnswer({ role: "assistant", content: "Sunny in Paris." }, "stop", { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34 }) }));
    const messages = [user, first.choices[0]!.message, { role: "tool" as const, tool_call_id: "call_1", content: "sunny" }];
    const second = await client.openai.chat.completions.create({ model: "azure-gpt", messages, tools: TOOLS });

    expect(second.choices[0]!.message.content).toBe("Sunny in Paris.");
    expect((azure.received[1]!.body as { messages: unknown[] }).messages).toEqual(JSON.parse(JSON.stringify(messages)));
    expect(await client.spentUnits()).toBe(String(20 + 10 + 30 + 8));
  });

  test("Azure's v1 API: OpenAI's paths under /openai/v1 with the deployment as model, no api-version", async () => {
    const client = await clients();
    azure.answer(() => ({ json: chatAnswer({ role: "assistant", content: "v1" }, "stop", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }) }));
    await client.openai.chat.completions.create({ model: "azure-v1-gpt", messages: [{ role: "user", content: "hi" }] });
    expect([azure.received[0]!.path, azure.received[0]!.query, (azure.received[0]!.body as { model: string }).model]).toEqual(["/openai/v1/chat/completions", {}, "gpt-4o-prod"]);
  });
});

describe("Azure with Microsoft Entra ID", () => {
  test("a managed identity's token, fetched once and cached, goes as a bearer token instead of an api-key", async () => {
    const client = await clients();
    azure.answer(() => ({ json: chatAnswer({ role: "assistant", content: "entra" }, "stop", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }) }));
    await client.openai.chat.completions.create({ model: "azure-entra-gpt", messages: [{ role: "user", content: "hi" }] });
    const answer = await client.openai.chat.completions.create({ model: "azure-entra-gpt", messages: [{ role: "user", content: "hi" }] });

    expect(answer.choices[0]!.message.content).toBe("entra");
    expect(identity.issued).toEqual([{ token: expect.any(String), resource: "https://cognitiveservices.azure.com" }]);
    expect(azure.received.map((request) => [request.path, request.headers.authorization, request.headers["api-key"]])).toEqual([
      ["/openai/v1/chat/completions", `Bearer ${identity.issued[0]!.token}`, undefined],
      ["/openai/v1/chat/completions", `Bearer ${identity.issued[0]!.token}`, undefined],
    ]);
  });
});

describe("Responses to Azure (relayed)", () => {
  const response = (text: string) => ({
    id: "resp_az",
    object: "response",
    created_at: 1,
    status: "completed",
    model: "gpt-4o-prod",
    output: [{ type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] }],
    usage: { input_tokens: 6, output_tokens: 2, total_tokens: 8 },
  });

  test("a whole answer goes to /openai/responses with api-version, the deployment in the body", async () => {
    const client = await clients();
    azure.answer(() => ({ json: response("Hi there") }));
    const answer = await client.openai.responses.create({ model: "azure-gpt", input: "hi" });

    expect([azure.received[0]!.path, azure.received[0]!.query]).toEqual(["/openai/responses", { "api-version": API_VERSION }]);
    expect(azure.received[0]!.body).toEqual({ model: "gpt-4o-prod", input: "hi" });
    expect(answer.output_text).toBe("Hi there");
    expect(await client.spentUnits()).toBe("10");
  });

  test("function tools and an input_image go as sent; a function_call comes back; Azure's 400 reaches the client", async () => {
    const client = await clients();
    const call = { type: "function_call", id: "fc_1", call_id: "call_r1", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" };
    azure.answer(() => ({ json: { ...response(""), output: [call] } }));
    const tools = [{ type: "function" as const, name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }];
    const input = [{ role: "user" as const, content: [{ type: "input_text" as const, text: "Weather here?" }, { type: "input_image" as const, image_url: "https://example.test/paris.png", detail: "low" as const }] }];
    const answer = await client.openai.responses.create({ model: "azure-gpt", input, tools });
    expect(answer.output).toEqual([call]);
    expect(azure.received[0]!.body).toEqual({ model: "gpt-4o-prod", input, tools });

    azure.answer(() => ({ status: 400, json: { error: { code: "invalid_value", message: "Invalid image URL.", param: "input[0].content[1].image_url", type: "invalid_request_error" } } }));
    const failure = await client.openai.responses.create({ model: "azure-gpt", input, tools }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(failure).toMatchObject({ code: "invalid_value", param: "input[0].content[1].image_url", message: "400 Invalid image URL." });
  });

  test("a stream is relayed event by event and charged from response.completed", async () => {
    const client = await clients();
    const events = [
      { type: "response.created", sequence_number: 0, response: { ...response(""), status: "in_progress", output: [], usage: null } },
      { type: "response.output_text.delta", sequence_number: 1, item_id: "msg_1", output_index: 0, content_index: 0, delta: "Hi there", logprobs: [] },
      { type: "response.completed", sequence_number: 2, response: response("Hi there") },
    ];
    azure.answer(() => namedEvents(events));
    const stream = await client.openai.responses.create({ model: "azure-gpt", input: "hi", stream: true });
    const seen: string[] = [];
    for await (const event of stream) seen.push(event.type);

    expect(seen).toEqual(events.map((event) => event.type));
    expect(await client.spentUnits()).toBe("10");
  });
});

describe("Messages to Azure (translated to Chat Completions)", () => {
  test("a whole answer with a tool call and an image: the Messages request reaches the deployment as Chat Completions", async () => {
    const client = await clients();
    azure.answer(() => ({ json: chatAnswer({ role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }] }, "tool_calls", { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 }) }));
    const message = await client.anthropic.messages.create({
      model: "azure-gpt",
      max_tokens: 50,
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
      messages: [{ role: "user", content: [{ type: "text", text: "Weather here?" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }] }],
    });

    const sent = azure.received[0]!;
    expect([sent.path, sent.query, sent.headers["api-key"]]).toEqual([CHAT_PATH, { "api-version": API_VERSION }, AZURE_KEY]);
    expect(sent.body).toMatchObject({
      model: "gpt-4o-prod",
      max_completion_tokens: 50,
      messages: [{ role: "user", content: [{ type: "text", text: "Weather here?" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] }],
      tools: [{ type: "function", function: { name: "get_weather" } }],
    });
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([{ type: "tool_use", id: "call_9", name: "get_weather", input: { city: "Oslo" } }]);
    expect(await client.spentUnits()).toBe("20");
  });

  test("a stream, Azure's chunks read back as Messages events by the SDK's parser", async () => {
    const client = await clients();
    azure.answer(() => ({ events: [filterChunk, chunk({ role: "assistant", content: "" }), chunk({ content: "Bon" }), chunk({ content: "jour" }), chunk({}, "stop"), usageChunk(4, 2), "[DONE]"].map((data) => ({ data })) }));
    const stream = client.anthropic.messages.stream({ model: "azure-gpt", max_tokens: 20, messages: [{ role: "user", content: "salut" }] });
    const final = await stream.finalMessage();

    expect(final.content).toMatchObject([{ type: "text", text: "Bonjour" }]);
    expect(final.usage).toMatchObject({ input_tokens: 4, output_tokens: 2 });
    expect(await client.spentUnits()).toBe("8");
  });
});

describe("Azure's errors, in the client's terms", () => {
  const contentFilter = { error: { message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.", type: null, param: "prompt", code: "content_filter", status: 400 } };

  test("Azure's 400 reaches Chat Completions with its message, code and param, and Messages as an invalid_request_error; nothing is charged", async () => {
    const client = await clients();
    azure.answer(() => ({ status: 400, json: contentFilter }));
    const chatFailure = await client.openai.chat.completions.create({ model: "azure-gpt", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    const messagesFailure = await client.anthropic.messages.create({ model: "azure-gpt", max_tokens: 10, messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);

    expect(chatFailure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(chatFailure).toMatchObject({ status: 400, code: "content_filter", param: "prompt", message: `400 ${contentFilter.error.message}` });
    expect(messagesFailure).toBeInstanceOf(Anthropic.BadRequestError);
    expect((messagesFailure as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: contentFilter.error.message } });
    expect(await client.spentUnits()).toBe("0");
  });

  test("Azure's 429 reaches the client as a 429 with its Retry-After", async () => {
    const client = await clients();
    azure.answer(() => ({ status: 429, json: { error: { code: "429", message: "Requests to the ChatCompletions_Create Operation have exceeded token rate limit." } }, headers: { "retry-after": "7" } }));
    const failure = await client.openai.chat.completions.create({ model: "azure-gpt", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after")).toBe("7");
  });

  test("a deployment Azure does not have is its 404 DeploymentNotFound", async () => {
    const client = await clients();
    const failure = await client.openai.chat.completions.create({ model: "azure-missing-deployment", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 404, code: "DeploymentNotFound" });
    expect(azure.received[0]!.path).toBe("/openai/deployments/no-such-deployment/chat/completions");
  });

  test("a wrong api-key is Azure's 401: a 502 that is not the client's fault, and the next route answers", async () => {
    const client = await clients();
    azure.answer(() => ({ json: chatAnswer({ role: "assistant", content: "ok" }, "stop", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }) }));
    const failure = await client.openai.chat.completions.create({ model: "azure-wrong-key-only", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 502, code: "upstream_failed" });
    expect((failure as Error).message).toContain("refused the gateway's own credentials (401)");

    azure.received.splice(0);
    const answer = await client.openai.chat.completions.create({ model: "azure-fallback", messages: [{ role: "user", content: "x" }] });
    expect(answer.choices[0]!.message.content).toBe("ok");
    expect(azure.received.map((request) => request.headers["api-key"])).toEqual([process.env[WRONG_KEY_ENV], AZURE_KEY]);
  });

  test("Azure's key, should Azure quote it in an error, is redacted", async () => {
    const client = await clients();
    azure.answer(() => ({ status: 400, json: { error: { code: "BadRequest", message: `The key ${AZURE_KEY} may not call this.` } } }));
    const failure = await client.openai.chat.completions.create({ model: "azure-gpt", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    expect((failure as Error).message).toBe("400 The key [redacted] may not call this.");
  });

  test("the scripted Azure itself refuses a request without api-version, as Azure does", async () => {
    const answer = await fetch(`${azure.origin}${CHAT_PATH}`, { method: "POST", headers: { "api-key": AZURE_KEY, "content-type": "application/json" }, body: "{}" });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: { code: "MissingApiVersionParameter" } });
  });
});

describe("Azure's media families", () => {
  test("embeddings go to the deployment's embeddings path and are charged Azure's token count", async () => {
    const client = await clients();
    const answer = { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.5, -0.25] }], model: "text-embedding-3-large", usage: { prompt_tokens: 4, total_tokens: 4 } };
    azure.answer(() => ({ json: answer }));
    const { data, response } = await client.openai.embeddings.create({ model: "azure-embed", input: "four tokens of text", encoding_format: "float" }).withResponse();

    expect([azure.received[0]!.path, azure.received[0]!.query, azure.received[0]!.headers["api-key"]]).toEqual(["/openai/deployments/embed-prod/embeddings", { "api-version": API_VERSION }, AZURE_KEY]);
    expect(data.data[0]!.embedding).toEqual([0.5, -0.25]);
    expect(response.headers.get("x-gateway-cost-units")).toBe("4");
  });

  test("on a key with a spend limit, embeddings are charged Azure's token count in full, above the gateway's own count", async () => {
    const client = await clients({ spendPolicy: { limitUnits: "1000" } });
    // The gateway counts 4 tokens; Azure's model counted 10.
    azure.answer(() => ({ json: { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.5] }], model: "text-embedding-3-large", usage: { prompt_tokens: 10, total_tokens: 10 } } }));
    const { response } = await client.openai.embeddings.create({ model: "azure-embed", input: "four tokens of text", encoding_format: "float" }).withResponse();

    expect(response.headers.get("x-gateway-cost-units")).toBe("10");
    expect(await client.spentUnits()).toBe("10");
  });

  test("an image generation goes to the deployment's images path and is charged per image", async () => {
    const client = await clients();
    azure.answer(() => ({ json: { created: 1, data: [{ b64_json: "aW1n", revised_prompt: "a lighthouse" }] } }));
    const { data, response } = await client.openai.images.generate({ model: "azure-draw", prompt: "a lighthouse", size: "1024x1024", n: 1 }).withResponse();

    expect([azure.received[0]!.path, azure.received[0]!.query]).toEqual(["/openai/deployments/image-prod/images/generations", { "api-version": API_VERSION }]);
    expect(azure.received[0]!.body).toEqual({ model: "image-prod", prompt: "a lighthouse", size: "1024x1024", n: 1 });
    expect(data.data?.[0]!.b64_json).toBe("aW1n");
    expect(response.headers.get("x-gateway-cost-units")).toBe("5");
  });
});

test("a transcription's multipart form goes to the deployment's audio path with its file, charged by Azure's seconds", async () => {
  const client = await clients();
  azure.answer(() => ({ json: { text: "hello there", usage: { type: "duration", seconds: 2.2 } } }));
  const transcription = await client.openai.audio.transcriptions.create({ model: "azure-listen", file: await toFile(Buffer.alloc(3000, 7), "speech.mp3", { type: "audio/mpeg" }), language: "en" });

  expect(transcription.text).toBe("hello there");
  expect([azure.received[0]!.path, azure.received[0]!.query, azure.received[0]!.headers["api-key"]]).toEqual(["/openai/deployments/whisper-prod/audio/transcriptions", { "api-version": API_VERSION }, AZURE_KEY]);
  expect(azure.received[0]!.body).toMatch(/name="language"\r\n\r\nen\r\n/);
  expect(azure.received[0]!.body).toMatch(/name="file"; filename="speech.mp3"/);
  // 2.2 s is charged as 3 seconds at 1 credit a second.
  expect(await client.spentUnits()).toBe("3");
});

describe("an Azure provider's config", () => {
  const issues = (provider: object, family = "chat") =>
    GatewayConfig.safeParse({
      providers: { az: { kind: "azure-openai", endpoint: "https://acme.openai.azure.com", ...provider } },
      models: [{ id: "m", family, routes: [{ provider: "az", model: "d" }], pricing: family === "chat" ? PRICING : { inputUnitsPerMillionTokens: "1" }, ...(family === "chat" && { maxOutputTokens: 10 }) }],
    }).error?.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);

  test("the deployments API needs an api-version; exactly one of a key or Entra ID; Azure forwards no moderation", () => {
    expect(issues({ apiKeyEnv: "K" })).toEqual(['providers.az.apiVersion: required with api: deployments (Azure refuses a request without one), e.g. "2024-10-21"; or use api: v1']);
    expect(issues({ api: "v1", apiKeyEnv: "K", entraId: true })).toEqual(["providers.az.apiKeyEnv: set exactly one of apiKeyEnv (an api-key) or entraId: true (Microsoft Entra ID)"]);
    expect(issues({ api: "v1" })).toEqual(["providers.az.apiKeyEnv: set exactly one of apiKeyEnv (an api-key) or entraId: true (Microsoft Entra ID)"]);
    expect(issues({ api: "v1", apiKeyEnv: "K" }, "moderation")).toEqual(['models.0.routes.0.provider: "az" (kind azure-openai) does not forward moderation models; it forwards chat, embeddings, images, speech, transcription']);
    expect(issues({ api: "v1", apiKeyEnv: "K" }, "embeddings")).toBeUndefined();
  });
});

test("each config the cloud kinds' pages in docs/operators/providers/ show is valid", () => {
  const pages = ["azure-openai", "vertex", "bedrock"].map((kind) => readFileSync(join(REPO_ROOT, "docs/operators/providers", `${kind}.md`), "utf8"));
  const configs = pages.flatMap((page) => [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => parseYaml(match[1]!) as unknown));
  expect(configs.length).toBeGreaterThanOrEqual(3);
  for (const config of configs) expect(GatewayConfig.safeParse(config).error?.issues).toBeUndefined();
});
