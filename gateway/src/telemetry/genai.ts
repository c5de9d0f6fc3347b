import type { ModelFamily } from "@gateway-keys/contract";

/**
 * The OpenTelemetry GenAI conventions' names for what the gateway does (docs/operators/operations.md#traces):
 * the attribute keys it sets, `gen_ai.operation.name` for each model family, and `gen_ai.provider.name`
 * for each provider kind. The conventions are still "development": the names are those of
 * @opentelemetry/semantic-conventions 1.45, written out here because its incubating entry point
 * may change between releases without notice.
 */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  requestStream: "gen_ai.request.stream",
  responseTimeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
} as const;

/**
 * `gen_ai.operation.name` by family: the conventions' own value where one applies (`chat` for Chat
 * Completions, Responses and Messages alike; `embeddings`), else the family's name, as they ask of
 * operations they do not name.
 */
export const GEN_AI_OPERATION: Record<ModelFamily, string> = {
  chat: "chat",
  embeddings: "embeddings",
  images: "images",
  speech: "speech",
  transcription: "transcription",
  moderation: "moderation",
};

/** `gen_ai.provider.name` by provider kind (the conventions' well-known values); the built-in models are the gateway's own. */
export const GEN_AI_PROVIDER: Record<string, string> = {
  openai: "openai",
  anthropic: "anthropic",
  "azure-openai": "azure.ai.openai",
  bedrock: "aws.bedrock",
  vertex: "gcp.vertex_ai",
  "built-in": "gateway_keys",
};
