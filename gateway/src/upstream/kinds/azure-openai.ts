import { z } from "zod";
import { serverSentEvents } from "../sse-events";
import type { ProviderCall } from "../upstream-provider";
import { entraTokenSource } from "./azure-entra";
import { commonProviderFields, encodedBody, EnvironmentVariableName, HttpUrl, OPENAI_WIRE_HEADERS, passedHeaders, pathUnder, requiredVariable, type ForwardedFamily, type ProviderKind } from "./common";

/** Operations Azure serves under a deployment (`/openai/deployments/{deployment}/…`); the Responses API is not one of them. */
const DEPLOYMENT_OPERATIONS = new Set(["/chat/completions", "/embeddings", "/images/generations", "/audio/speech", "/audio/transcriptions"]);

/** Azure OpenAI has no moderations endpoint (content filtering is part of every answer). */
const AZURE_FAMILIES: ReadonlySet<ForwardedFamily> = new Set(["chat", "embeddings", "images", "speech", "transcription"]);

export const AzureOpenAIProviderConfig = z
  .strictObject({
    kind: z.literal("azure-openai"),
    /** The resource's endpoint: `https://NAME.openai.azure.com` (or a gateway in front of it, path included). */
    endpoint: HttpUrl,
    /**
     * `deployments` (default): the dated API, `/openai/deployments/{route model}/…?api-version=…`.
     * `v1`: Azure's v1 API, `/openai/v1/…`, OpenAI's own wire with the deployment as `model`.
     */
    api: z.enum(["deployments", "v1"], { error: 'expected "deployments" or "v1"' }).default("deployments"),
    /** The `api-version` query parameter: required by the deployments API (e.g. `2024-10-21`); the v1 API needs none. */
    apiVersion: z.string().regex(/^(\d{4}-\d{2}-\d{2}(-preview)?|preview|latest)$/, { error: 'expected an api-version such as "2024-10-21" or "2025-04-01-preview"' }).optional(),
    /** Name of the environment variable holding the resource's key, sent as the `api-key` header. */
    apiKeyEnv: EnvironmentVariableName.optional(),
    /** Microsoft Entra ID instead of a key: a bearer token from @azure/identity's DefaultAzureCredential (see docs/operators/providers/azure-openai.md). */
    entraId: z.literal(true, { error: "expected true (Microsoft Entra ID through DefaultAzureCredential)" }).optional(),
    ...commonProviderFields,
  })
  .superRefine((config, ctx) => {
    if ((config.apiKeyEnv === undefined) === (config.entraId === undefined)) {
      ctx.addIssue({ code: "custom", path: ["apiKeyEnv"], message: "set exactly one of apiKeyEnv (an api-key) or entraId: true (Microsoft Entra ID)" });
    }
    if (config.api === "deployments" && config.apiVersion === undefined) {
      ctx.addIssue({ code: "custom", path: ["apiVersion"], message: 'required with api: deployments (Azure refuses a request without one), e.g. "2024-10-21"; or use api: v1' });
    }
  });
export type AzureOpenAIProviderConfig = z.infer<typeof AzureOpenAIProviderConfig>;

/** Where a call goes on an Azure resource, in either API. The route's model is the deployment's name. */
function azurePath(config: AzureOpenAIProviderConfig, call: ProviderCall): string {
  const version = config.apiVersion === undefined ? "" : `?api-version=${encodeURIComponent(config.apiVersion)}`;
  if (config.api === "v1") return pathUnder(config.endpoint, `/openai/v1${call.path}${version}`);
  if (DEPLOYMENT_OPERATIONS.has(call.path)) return pathUnder(config.endpoint, `/openai/deployments/${encodeURIComponent(call.model)}${call.path}${version}`);
  // The Responses API (and anything else) is under /openai, the deployment named by `model` in the body.
  return pathUnder(config.endpoint, `/openai${call.path}${version}`);
}

/** How requests to the resource are authenticated: its key (read once, at start), or Entra ID tokens (fetched when needed, cached, refreshed before they expire). */
function azureCredential(
  config: AzureOpenAIProviderConfig,
  name: string,
  env: NodeJS.ProcessEnv,
): { headers(): Promise<Record<string, string>>; secrets(): readonly string[]; refused?(): void } {
  if (config.apiKeyEnv !== undefined) {
    const apiKey = requiredVariable(env, config.apiKeyEnv, name, "the Azure OpenAI resource's key");
    return { headers: async () => ({ "api-key": apiKey }), secrets: () => [apiKey] };
  }
  const tokens = entraTokenSource(name);
  return { headers: async () => ({ authorization: `Bearer ${await tokens.token()}` }), secrets: () => tokens.current(), refused: () => tokens.forget() };
}

/**
 * Azure OpenAI: OpenAI's wire on a resource of one's own, authenticated by its `api-key` or an
 * Entra ID bearer token. The body goes as the client sent it (`model` is the deployment's name,
 * which Azure reads from the path in the deployments API and from the body in v1).
 */
export const AZURE_OPENAI_KIND: ProviderKind<AzureOpenAIProviderConfig> = {
  config: AzureOpenAIProviderConfig,
  families: () => AZURE_FAMILIES,
  open(config, name, env) {
    const credential = azureCredential(config, name, env);
    return {
      origin: new URL(config.endpoint).origin,
      wire: "openai",
      endpoint: {
        async prepare(call) {
          const headers = passedHeaders(OPENAI_WIRE_HEADERS, call.clientHeaders, await credential.headers());
          return { path: azurePath(config, call), headers, body: encodedBody(call, headers) };
        },
        events: (body) => serverSentEvents(body),
        secrets: () => credential.secrets(),
        credentialsRefused: () => credential.refused?.(),
      },
    };
  },
};
