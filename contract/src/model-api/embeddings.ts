import { z } from "zod";
import { ModelName } from "./text";

/**
 * `POST /v1/embeddings` (OpenAI wire). The envelope: what every embeddings request must carry; the
 * rest (token arrays, `user`, fields added tomorrow) passes to a provider as sent.
 */
export const EmbeddingsRequest = z.looseObject({ model: ModelName, input: z.unknown().refine((input) => input !== undefined, { error: "required: a string or an array of strings" }) });
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequest>;

/** What the built-in embeddings models take (other fields are ignored). Token-array inputs are not supported; text is. */
export const BuiltInEmbeddingsRequest = z.object({
  model: ModelName,
  input: z.union([z.string(), z.array(z.string({ error: "expected a string" })).min(1, { error: "must hold at least one text" }).max(2048)], {
    error: "expected a string or an array of strings (token arrays are not supported)",
  }),
  /** The openai SDK asks for `base64` (little-endian float32) by default and decodes it. */
  encoding_format: z.enum(["float", "base64"], { error: 'expected "float" or "base64"' }).optional(),
  dimensions: z.number({ error: "expected an integer" }).int().min(1, { error: "must be at least 1" }).optional(),
});
export type BuiltInEmbeddingsRequest = z.infer<typeof BuiltInEmbeddingsRequest>;

export const EmbeddingsResponse = z.object({
  object: z.literal("list"),
  data: z.array(z.object({ object: z.literal("embedding"), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]) })),
  model: z.string(),
  usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});
export type EmbeddingsResponse = z.infer<typeof EmbeddingsResponse>;
