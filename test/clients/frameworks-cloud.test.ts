/**
 * The agent frameworks' tool loops (frameworks-support.ts) through each cloud provider kind: every
 * framework client, whole and streamed, on a model served by a scripted Azure OpenAI resource
 * (deployments API, `api-key`, `api-version` required), by Claude on a scripted Vertex AI
 * (`rawPredict` / `streamRawPredict`, tokens from a scripted Google token endpoint), and by Gemini
 * through Vertex's OpenAI-compatible endpoint, by Claude on a scripted Amazon Bedrock through
 * InvokeModel (every request's SigV4 signature verified), and by a Bedrock model on the Converse
 * API. Each cloud checks what the real one checks, then hands the request to a gateway serving
 * `tools-1` (Converse, which no gateway speaks, is answered by a small tools model of its own), so
 * a loop only closes if the kind carried both turns — the call and the tool's result — on its wire,
 * relayed or translated.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startScriptedAzure } from "@gateway-keys/testkit/scripted-azure";
import { converseStream, encodeFrame, startScriptedBedrock } from "@gateway-keys/testkit/scripted-bedrock";
import { startScriptedGoogle, type ScriptedGoogle } from "@gateway-keys/testkit/scripted-google";
import { startScriptedProvider, type ReceivedRequest, type Script, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { answeredBy, expectAllLooped, loopsOn, runFrameworks } from "./frameworks-support";

const AZURE_KEY_ENV = "GATEWAY_TEST_FRAMEWORKS_AZURE_KEY";
const AZURE_KEY = "azure-resource-key-0123456789";
const PROJECT = "frameworks-project";
const PRICING = { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" };
const AWS_KEYS = { AWS_ACCESS_KEY_ID: "AKIAFRAMEWORKS000001", AWS_SECRET_ACCESS_KEY: "frameworks-secret-0123456789abcdefghijklmn" };
const MODELS = ["on-azure", "on-vertex-claude", "on-vertex-gemini", "on-bedrock-claude", "on-bedrock-converse"];
const chat = (id: string, provider: string, model: string) => ({ id, family: "chat", routes: [{ provider, model }], pricing: PRICING, maxOutputTokens: 4096 });

let model: TestGateway;
let gateway: TestGateway;
let key: string;
let google: ScriptedGoogle;
let clouds: ScriptedProvider[];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "frameworks-cloud-"));
  model = await startTestGateway({ storage: "memory" });
  const modelKey = (await model.createRegularKey({ name: "behind the clouds" })).secret;
  const toModel = (body: unknown, drop: string[] = [], modelId = "tools-1") => {
    const fields: Record<string, unknown> = { ...(body as Record<string, unknown>), model: modelId };
    for (const name of drop) delete fields[name];
    return fields;
  };

  const azure = await startScriptedAzure({ apiKey: AZURE_KEY, deployments: ["tools-deployment"] });
  azure.answer(
    answeredBy(model.baseUrl, modelKey, (request) => {
      const path = `/v1/${request.path.replace(/^\/openai\/(deployments\/[^/]+\/)?/, "")}`;
      return { path, body: toModel(request.body, [], path === "/v1/embeddings" ? "hash-embed-1" : "tools-1") };
    }),
  );

  google = await startScriptedGoogle(dir);
  const account = google.serviceAccount("frameworks", { lifetimeSeconds: 3600 });
  const claudeVertex = await startScriptedProvider({ gate: google.vertexGate(PROJECT, "us-east5") });
  // rawPredict and streamRawPredict take the Messages body without a model, with Vertex's anthropic_version.
  claudeVertex.answer(answeredBy(model.baseUrl, modelKey, (request) => ({ path: "/v1/messages", body: toModel(request.body, ["anthropic_version"]) })));
  const geminiVertex = await startScriptedProvider({ gate: google.vertexGate(PROJECT, "global") });
  geminiVertex.answer(answeredBy(model.baseUrl, modelKey, (request) => ({ path: "/v1/chat/completions", body: toModel(request.body) })));
  Object.assign(process.env, AWS_KEYS);
  const bedrockClaude = await startScriptedBedrock({ region: "us-east-1", credentials: [{ accessKeyId: AWS_KEYS.AWS_ACCESS_KEY_ID, secretAccessKey: AWS_KEYS.AWS_SECRET_ACCESS_KEY }] });
  bedrockClaude.answer((request) => (request.path.endsWith("/invoke-with-response-stream") ? invokeStreamFrom(model.baseUrl, modelKey, request) : answeredBy(model.baseUrl, modelKey, messagesOf)(request)));
  const bedrockConverse = await startScriptedBedrock({ region: "us-east-1", credentials: [{ accessKeyId: AWS_KEYS.AWS_ACCESS_KEY_ID, secretAccessKey: AWS_KEYS.AWS_SECRET_ACCESS_KEY }] });
  // Converse for chat; Titan's embeddings through InvokeModel: a vector of 256 per text, its words counted as tokens.
  bedrockConverse.answer((request) =>
    request.path.endsWith("/invoke") ? { json: { embedding: Array.from({ length: 256 }, (_, index) => index / 256), inputTextTokenCount: 3 } } : converseToolsModel(request),
  );
  clouds = [azure, claudeVertex, geminiVertex, bedrockClaude, bedrockConverse];

  process.env[AZURE_KEY_ENV] = AZURE_KEY;
  const vertex = (publisher: string, region: string, baseUrl: string) => ({ kind: "vertex", project: PROJECT, region, publisher, credentialsFile: account.keyFile, baseUrl });
  const config = GatewayConfig.parse({
    providers: {
      azure: { kind: "azure-openai", endpoint: azure.origin, apiVersion: "2025-04-01-preview", apiKeyEnv: AZURE_KEY_ENV },
      "vertex-claude": vertex("anthropic", "us-east5", claudeVertex.origin),
      "vertex-gemini": vertex("openai-compatible", "global", geminiVertex.origin),
      "bedrock-claude": { kind: "bedrock", region: "us-east-1", api: "invoke-anthropic", endpoint: bedrockClaude.origin },
      "bedrock-converse": { kind: "bedrock", region: "us-east-1", api: "converse", endpoint: bedrockConverse.origin },
    },
    models: [
      chat("on-azure", "azure", "tools-deployment"),
      chat("on-vertex-claude", "vertex-claude", "claude-sonnet-4-5@20250929"),
      chat("on-vertex-gemini", "vertex-gemini", "google/gemini-2.5-flash"),
      chat("on-bedrock-claude", "bedrock-claude", "anthropic.claude-sonnet-4-5-20250929-v1:0"),
      chat("on-bedrock-converse", "bedrock-converse", "amazon.nova-pro-v1:0"),
      { id: "embed-on-azure", family: "embeddings", routes: [{ provider: "azure", model: "tools-deployment" }], pricing: { inputUnitsPerMillionTokens: "1" } },
      { id: "embed-on-bedrock", family: "embeddings", routes: [{ provider: "bedrock-converse", model: "amazon.titan-embed-text-v2:0" }], pricing: { inputUnitsPerMillionTokens: "1" } },
    ],
  });
  gateway = await startTestGateway({ storage: "memory", config });
  key = (await gateway.createRegularKey({ name: "frameworks" })).secret;
});

afterAll(async () => {
  await gateway?.stop();
  await model?.stop();
  await Promise.all([...(clouds ?? []).map((cloud) => cloud.close()), google?.close()]);
  rmSync(dir, { recursive: true, force: true });
  delete process.env[AZURE_KEY_ENV];
  for (const name of Object.keys(AWS_KEYS)) delete process.env[name];
});

test.each(MODELS)("each framework's tool loop runs, whole and streamed, on a model %s", async (modelId) => {
  const cloud = clouds[MODELS.indexOf(modelId)]!;
  const before = cloud.received.length;
  expectAllLooped(await runFrameworks(gateway.baseUrl, key, loopsOn(() => modelId)));
  // The loops went through the cloud (two calls each: the tool call, then the answer), all let through by its checks.
  expect(cloud.received.length - before).toBe(2 * 14);
});

test("the frameworks' embeddings reach Azure's deployment and Bedrock's Titan", async () => {
  const cases = ["embed-on-azure", "embed-on-bedrock"].flatMap((modelId) => [{ client: "vercel-chat" as const, model: modelId, embed: true }, { client: "langchain-openai" as const, model: modelId, embed: true }]);
  const outcomes = await runFrameworks(gateway.baseUrl, key, cases);
  expect(outcomes.map(({ model: modelId, ok, dimensions, error }) => ({ model: modelId, ok, dimensions, error }))).toEqual(cases.map(({ model: modelId }) => ({ model: modelId, ok: true, dimensions: 256, error: undefined })));
  expect(clouds[0]!.received.some((request) => request.path === "/openai/deployments/tools-deployment/embeddings")).toBe(true);
  expect(clouds[4]!.received.some((request) => request.path.endsWith("/invoke"))).toBe(true);
});

/** InvokeModel's body as the Messages request it carries, for the model's gateway. */
function messagesOf(request: ReceivedRequest): { path: string; body: Record<string, unknown> } {
  const { anthropic_version: _version, anthropic_beta: _betas, ...body } = request.body as Record<string, unknown>;
  return { path: "/v1/messages", body: { ...body, model: "tools-1" } };
}

/** InvokeModelWithResponseStream: the model gateway's Messages events, each as a `chunk` frame of AWS's event stream. */
function invokeStreamFrom(modelGatewayUrl: string, key: string, request: ReceivedRequest): Script {
  return {
    handle: (_request, response) =>
      void (async () => {
        const answer = await fetch(`${modelGatewayUrl}/v1/messages`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ ...messagesOf(request).body, stream: true }),
        });
        response.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
        const events = (await answer.text()).split("\n\n").flatMap((event) => event.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)));
        for (const data of events) response.write(encodeFrame({ type: "chunk", payload: { bytes: Buffer.from(data).toString("base64") } }));
        response.end();
      })().catch(() => response.destroy()),
  };
}

type ConverseBlock = { text?: string; toolUse?: unknown; toolResult?: { content: { text?: string }[] } };

/**
 * A tools model on the Converse API, as `tools-1` is on the others: with no tool result in the
 * last turn it calls the first tool, its first property set to the last user text; with one, it
 * answers with the result's text.
 */
function converseToolsModel(request: ReceivedRequest): Script {
  const body = request.body as { messages: { content: ConverseBlock[] }[]; toolConfig?: { tools: { toolSpec: { name: string; inputSchema: { json: { properties: object } } } }[] } };
  const last = body.messages.at(-1)!.content;
  const result = last.find((block) => block.toolResult)?.toolResult;
  const spec = body.toolConfig!.tools[0]!.toolSpec;
  const call = { toolUseId: "tooluse_frameworks", name: spec.name, input: { [Object.keys(spec.inputSchema.json.properties)[0]!]: last.map((block) => block.text ?? "").join("") } };
  const usage = { inputTokens: 5, outputTokens: 3, totalTokens: 8 };
  const stopReason = result ? "end_turn" : "tool_use";
  if (!request.path.endsWith("/converse-stream")) {
    const content = result ? [{ text: result.content.map((piece) => piece.text ?? "").join("") }] : [{ toolUse: call }];
    return { json: { output: { message: { role: "assistant", content } }, stopReason, usage, metrics: { latencyMs: 1 } } };
  }
  const block = result
    ? [{ type: "contentBlockDelta", payload: { contentBlockIndex: 0, delta: { text: result.content.map((piece) => piece.text ?? "").join("") } } }]
    : [
        { type: "contentBlockStart", payload: { contentBlockIndex: 0, start: { toolUse: { toolUseId: call.toolUseId, name: call.name } } } },
        { type: "contentBlockDelta", payload: { contentBlockIndex: 0, delta: { toolUse: { input: JSON.stringify(call.input) } } } },
      ];
  return converseStream([
    { type: "messageStart", payload: { role: "assistant" } },
    ...block,
    { type: "contentBlockStop", payload: { contentBlockIndex: 0 } },
    { type: "messageStop", payload: { stopReason } },
    { type: "metadata", payload: { usage, metrics: { latencyMs: 1 } } },
  ]);
}
