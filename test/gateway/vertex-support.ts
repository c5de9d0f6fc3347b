/**
 * What the Vertex suite sets up (cloud-vertex.test.ts): a scripted Google token endpoint with two
 * service accounts — Claude's, whose tokens live an hour, and Gemini's, whose tokens live one
 * second — a key file in Claude's account's name signed with a key Google does not know, a scripted
 * Vertex per location (us-east5 for Claude, global for Gemini), and one gateway in front of them.
 *
 * Models (1 credit per input token, 2 per output token, `maxOutputTokens` 100):
 *   claude             → vertex-claude (publisher anthropic), model claude-sonnet-4-5@20250929
 *   gemini             → vertex-gemini (publisher openai-compatible), model google/gemini-2.5-flash
 *   claude-foreign-key → vertex-foreign, Claude through the forged key file
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GatewayConfig } from "@gateway-keys/gateway";
import { startScriptedGoogle, type ScriptedGoogle, type ServiceAccount } from "@gateway-keys/testkit/scripted-google";
import { startScriptedProvider, type ScriptedProvider } from "@gateway-keys/testkit/scripted-provider";
import { startTestGateway, type TestGateway } from "@gateway-keys/testkit/test-gateway";
import { PRICING } from "./forwarding-support";

export const PROJECT = "scripted-project";
export const CLAUDE_PATH = `/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929`;
export const GEMINI_PATH = `/v1/projects/${PROJECT}/locations/global/endpoints/openapi/chat/completions`;

export interface VertexSetup {
  dir: string;
  google: ScriptedGoogle;
  claudeVertex: ScriptedProvider;
  geminiVertex: ScriptedProvider;
  gateway: TestGateway;
  claudeAccount: ServiceAccount;
  geminiAccount: ServiceAccount;
}

/** Starts everything above for the file that calls it (at its top); each test starts with empty records. */
export function useVertex(): () => VertexSetup {
  let setup: VertexSetup | undefined;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "vertex-"));
    const google = await startScriptedGoogle(dir);
    const claudeAccount = google.serviceAccount("claude-caller", { lifetimeSeconds: 3600 });
    const geminiAccount = google.serviceAccount("gemini-caller", { lifetimeSeconds: 1 });
    const foreign = google.foreignServiceAccount("claude-caller");
    const claudeVertex = await startScriptedProvider({ gate: google.vertexGate(PROJECT, "us-east5") });
    const geminiVertex = await startScriptedProvider({ gate: google.vertexGate(PROJECT, "global") });
    const chat = (id: string, provider: string, model: string) => ({ id, family: "chat", routes: [{ provider, model }], pricing: PRICING, maxOutputTokens: 100 });
    const vertex = (publisher: string, region: string, credentialsFile: string, baseUrl: string) => ({ kind: "vertex", project: PROJECT, region, publisher, credentialsFile, baseUrl, timeoutMs: 5000 });
    const config = GatewayConfig.parse({
      providers: {
        "vertex-claude": vertex("anthropic", "us-east5", claudeAccount.keyFile, claudeVertex.origin),
        "vertex-gemini": vertex("openai-compatible", "global", geminiAccount.keyFile, geminiVertex.origin),
        "vertex-foreign": vertex("anthropic", "us-east5", foreign.keyFile, claudeVertex.origin),
      },
      models: [chat("claude", "vertex-claude", "claude-sonnet-4-5@20250929"), chat("gemini", "vertex-gemini", "google/gemini-2.5-flash"), chat("claude-foreign-key", "vertex-foreign", "claude-sonnet-4-5@20250929")],
    });
    setup = { dir, google, claudeVertex, geminiVertex, claudeAccount, geminiAccount, gateway: await startTestGateway({ storage: "memory", config }) };
  });
  beforeEach(() => {
    setup?.claudeVertex.received.splice(0);
    setup?.geminiVertex.received.splice(0);
  });
  afterAll(async () => {
    await setup?.gateway.stop();
    await Promise.all([setup?.claudeVertex.close(), setup?.geminiVertex.close(), setup?.google.close()]);
    if (setup) rmSync(setup.dir, { recursive: true, force: true });
  });
  return () => {
    if (!setup) throw new Error("useVertex: not started yet (call it at the top of the file)");
    return setup;
  };
}

/** The bearer token of a request's `Authorization` header. */
export const bearer = (headers: Record<string, unknown>) => /^Bearer (.+)$/.exec(String(headers.authorization))?.[1];

/** A whole Messages answer as Claude on Vertex writes it. */
export const claudeMessage = (content: object[], stopReason: string, usage = { input_tokens: 9, output_tokens: 4 }) => ({
  id: "msg_vrtx_01",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content,
  stop_reason: stopReason,
  stop_sequence: null,
  usage,
});

/** A Messages stream of one text block in `text` pieces (8 input tokens, 3 output tokens). */
export const claudeTextStream = (text: string[]) => [
  { type: "message_start", message: { ...claudeMessage([], "end_turn"), stop_reason: null, usage: { input_tokens: 8, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "ping" },
  ...text.map((piece) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } })),
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } },
  { type: "message_stop" },
];

export const WEATHER_TOOL = { name: "get_weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } };
export const CHAT_WEATHER_TOOL = { type: "function" as const, function: { name: "get_weather", parameters: WEATHER_TOOL.input_schema } };
