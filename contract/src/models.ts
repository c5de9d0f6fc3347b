import { z } from "zod";

/**
 * What a model does, and so which endpoints serve it: a `chat` model answers Chat Completions,
 * Responses and Messages alike; each other family has its one endpoint.
 */
export const ModelFamily = z.enum(["chat", "embeddings", "images", "speech", "transcription", "moderation"]);
export type ModelFamily = z.infer<typeof ModelFamily>;

/** One model of `GET /v1/models` (the OpenAI list item, plus its family and price). */
export const Model = z.object({
  object: z.literal("model"),
  id: z.string(),
  created: z.number().int(),
  owned_by: z.string(),
  family: ModelFamily,
  description: z.string(),
  /**
   * Credits, as decimal strings, in the model's unit: per million tokens (built-in models, chat,
   * embeddings and moderation; what a token is for each family is in docs/api/media.md#media-endpoints-what-they-share), per million
   * characters (forwarded speech), per minute of audio (forwarded transcription) or per image by
   * size (forwarded images).
   */
  pricing: z.union([
    z.object({ input_units_per_million_tokens: z.string(), output_units_per_million_tokens: z.string() }),
    z.object({ units_per_million_characters: z.string() }),
    z.object({ units_per_minute: z.string() }),
    z.object({ units_per_image: z.record(z.string(), z.string()) }),
  ]),
  /** The most tokens one request may generate. */
  max_output_tokens: z.number().int(),
});
export type Model = z.infer<typeof Model>;

/** `GET /v1/startups`: public metadata about this gateway. */
export const GatewayInfo = z.object({
  object: z.literal("gateway_info"),
  name: z.string(),
  version: z.string(),
  apiVersion: z.literal("v1"),
  /** Extensions beyond the seed contract a client may use, e.g. `single_key_get`. */
  extensions: z.array(z.string()),
});
export type GatewayInfo = z.infer<typeof GatewayInfo>;
