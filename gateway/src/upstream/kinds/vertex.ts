import { z } from "zod";
import { serverSentEvents } from "../sse-events";
import { googleTokenSource } from "./google-credentials";
import { CHAT_ONLY, commonProviderFields, encodedBody, HttpUrl, jsonBody, passedHeaders, pathUnder, type ProviderKind } from "./common";

/** The Messages API version Vertex AI takes, in the body rather than a header. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** Client headers passed on: Anthropic's betas (the version travels in the body); OpenAI's none that Vertex defines. */
const ANTHROPIC_HEADERS = ["anthropic-beta"] as const;

/** The only text operation Vertex's OpenAI-compatible endpoint has: Responses requests are translated to it. */
const OPENAI_COMPATIBLE_OPERATIONS: ReadonlySet<string> = new Set(["/chat/completions"]);

export const VertexProviderConfig = z.strictObject({
  kind: z.literal("vertex"),
  /** The Google Cloud project id. */
  project: z.string().regex(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/, { error: "expected a Google Cloud project id such as my-project-123" }),
  /** The location: a region such as `us-east5` or `europe-west1`, or `global`. */
  region: z.string().regex(/^(global|[a-z]+-[a-z]+\d+)$/, { error: "expected a region such as us-east5, or global" }),
  /**
   * Whose models, and so which wire: `anthropic` (Claude through rawPredict / streamRawPredict,
   * the Messages wire) or `openai-compatible` (Gemini and Model Garden models through Vertex's
   * OpenAI-compatible Chat Completions endpoint, the route's model written `google/…`).
   */
  publisher: z.enum(["anthropic", "openai-compatible"], { error: 'expected "anthropic" or "openai-compatible"' }),
  /** A service account key file (JSON); without it, GOOGLE_APPLICATION_CREDENTIALS, else Application Default Credentials. */
  credentialsFile: z.string().min(1).optional(),
  /** Where the API is; default `https://{region}-aiplatform.googleapis.com` (`https://aiplatform.googleapis.com` for global). */
  baseUrl: HttpUrl.optional(),
  ...commonProviderFields,
});
export type VertexProviderConfig = z.infer<typeof VertexProviderConfig>;

function vertexBaseUrl(config: VertexProviderConfig): string {
  if (config.baseUrl !== undefined) return config.baseUrl;
  return config.region === "global" ? "https://aiplatform.googleapis.com" : `https://${config.region}-aiplatform.googleapis.com`;
}

/** A model id as one path segment: `@` (Claude's version mark, `claude-sonnet-4-5@20250929`) is a path character and stays as Google writes it. */
const modelSegment = (model: string) => encodeURIComponent(model).replace(/%40/g, "@");

/**
 * Google Vertex AI: a project's models in a region, reached with a service account's OAuth access
 * tokens. One provider serves one publisher; a config declares one provider per publisher it uses.
 */
export const VERTEX_KIND: ProviderKind<VertexProviderConfig> = {
  config: VertexProviderConfig,
  families: () => CHAT_ONLY,
  open(config, name, env) {
    const tokens = googleTokenSource(config.credentialsFile, env, name);
    const baseUrl = vertexBaseUrl(config);
    const location = `/v1/projects/${config.project}/locations/${config.region}`;
    const anthropic = config.publisher === "anthropic";
    return {
      origin: new URL(baseUrl).origin,
      wire: anthropic ? "anthropic" : "openai",
      ...(!anthropic && { relayPaths: OPENAI_COMPATIBLE_OPERATIONS }),
      endpoint: {
        async prepare(call) {
          const authorization = `Bearer ${await tokens.token()}`;
          if (anthropic) {
            const method = call.stream ? "streamRawPredict" : "rawPredict";
            const path = pathUnder(baseUrl, `${location}/publishers/anthropic/models/${modelSegment(call.model)}:${method}`);
            const headers = passedHeaders(ANTHROPIC_HEADERS, call.clientHeaders, { authorization, "content-type": "application/json" });
            // The Messages body as Vertex takes it: the model in the path, the version in the body.
            return { path, headers, body: JSON.stringify({ ...jsonBody(call, name), anthropic_version: VERTEX_ANTHROPIC_VERSION }) };
          }
          const headers: Record<string, string> = { authorization };
          return { path: pathUnder(baseUrl, `${location}/endpoints/openapi${call.path}`), headers, body: encodedBody(call, headers) };
        },
        events: (body) => serverSentEvents(body),
        secrets: () => tokens.current(),
        credentialsRefused: () => tokens.forget(),
      },
    };
  },
};
