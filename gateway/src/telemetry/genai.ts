import type { Attributes } from "@opentelemetry/api";
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
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestStream: "gen_ai.request.stream",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  responseTimeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
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

/** What a model answered, as far as the wire said it, in GenAI attributes (absent figures are left out). */
export function answerAttributes(answer: {
  model?: string | undefined;
  id?: string | undefined;
  finishReasons?: readonly string[] | undefined;
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  cacheReadInputTokens?: number | undefined;
  cacheCreationInputTokens?: number | undefined;
}): Attributes {
  const attributes: Attributes = {};
  if (answer.model) attributes[GEN_AI.responseModel] = answer.model;
  if (answer.id) attributes[GEN_AI.responseId] = answer.id;
  if (answer.finishReasons && answer.finishReasons.length > 0) attributes[GEN_AI.responseFinishReasons] = [...answer.finishReasons];
  if (answer.inputTokens !== undefined) attributes[GEN_AI.inputTokens] = answer.inputTokens;
  if (answer.outputTokens !== undefined) attributes[GEN_AI.outputTokens] = answer.outputTokens;
  if (answer.cacheReadInputTokens) attributes[GEN_AI.cacheReadInputTokens] = answer.cacheReadInputTokens;
  if (answer.cacheCreationInputTokens) attributes[GEN_AI.cacheCreationInputTokens] = answer.cacheCreationInputTokens;
  return attributes;
}
