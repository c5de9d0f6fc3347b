/**
 * The agent frameworks' tool loops (frameworks-support.ts) through each cloud provider kind: every
 * framework client, whole and streamed, on a model served by a scripted Azure OpenAI resource
 * (deployments API, `api-key`, `api-version` required), by Claude on a scripted Vertex AI
 * (`rawPredict` / `streamRawPredict`, tokens from a scripted Google token endpoint), and by Gemini
 * through Vertex's OpenAI-compatible endpoint. Each cloud checks what the real one checks, then
 * hands the request to a gateway serving `tools-1`, so a loop only closes if the kind carried both
 * turns — the call and the tool's result — on its wire, relayed or translated.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startScriptedAzure } from "@gateway-keys/testkit/scripted-azure";
import { startScriptedGoogle, type ScriptedGoogle } from "@gateway-keys/testkit/scripted-google";
import { startScriptedProvider, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { answeredBy, expectAllLooped, loopsOn, runFrameworks } from "./frameworks-support";

const AZURE_KEY_ENV = "GATEWAY_TEST_FRAMEWORKS_AZURE_KEY";
const AZURE_KEY = "azure-resource-key-0123456789";
const PROJECT = "frameworks-project";
const PRICING = { inputUnitsPerMillionTokens: "1", outputUnitsPerMillionTokens: "1" };
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
  const toModel = (body: unknown, drop: string[] = []) => {
    const fields = { ...(body as Record<string, unknown>), model: "tools-1" };
    for (const name of drop) delete fields[name];
    return fields;
  };

  const azure = await startScriptedAzure({ apiKey: AZURE_KEY, deployments: ["tools-deployment"] });
  azure.answer(answeredBy(model.baseUrl, modelKey, (request) => ({ path: `/v1/${request.path.replace(/^\/openai\/(deployments\/[^/]+\/)?/, "")}`, body: toModel(request.body) })));

  google = await startScriptedGoogle(dir);
  const account = google.serviceAccount("frameworks", { lifetimeSeconds: 3600 });
  const claudeVertex = await startScriptedProvider({ gate: google.vertexGate(PROJECT, "us-east5") });
  // rawPredict and streamRawPredict take the Messages body without a model, with Vertex's anthropic_version.
  claudeVertex.answer(answeredBy(model.baseUrl, modelKey, (request) => ({ path: "/v1/messages", body: toModel(request.body, ["anthropic_version"]) })));
  const geminiVertex = await startScriptedProvider({ gate: google.vertexGate(PROJECT, "global") });
  geminiVertex.answer(answeredBy(model.baseUrl, modelKey, (request) => ({ path: "/v1/chat/completions", body: toModel(request.body) })));
  clouds = [azure, claudeVertex, geminiVertex];

  process.env[AZURE_KEY_ENV] = AZURE_KEY;
  const vertex = (publisher: string, region: string, baseUrl: string) => ({ kind: "vertex", project: PROJECT, region, publisher, credentialsFile: account.keyFile, baseUrl });
  const config = GatewayConfig.parse({
    providers: {
      azure: { kind: "azure-openai", endpoint: azure.origin, apiVersion: "2025-04-01-preview", apiKeyEnv: AZURE_KEY_ENV },
      "vertex-claude": vertex("anthropic", "us-east5", claudeVertex.origin),
      "vertex-gemini": vertex("openai-compatible", "global", geminiVertex.origin),
    },
    models: [chat("on-azure", "azure", "tools-deployment"), chat("on-vertex-claude", "vertex-claude", "claude-sonnet-4-5@20250929"), chat("on-vertex-gemini", "vertex-gemini", "google/gemini-2.5-flash")],
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
});

test.each(["on-azure", "on-vertex-claude", "on-vertex-gemini"])("each framework's tool loop runs, whole and streamed, on a model %s", async (modelId) => {
  const before = clouds.map((cloud) => cloud.received.length);
  expectAllLooped(await runFrameworks(gateway.baseUrl, key, loopsOn(() => modelId)));
  // The loops went through the cloud (two calls each: the tool call, then the answer), all let through by its checks.
  const cloud = clouds[["on-azure", "on-vertex-claude", "on-vertex-gemini"].indexOf(modelId)]!;
  expect(cloud.received.length - before[clouds.indexOf(cloud)]!).toBe(2 * 14);
});
