import { z } from "zod";
import { ModelName } from "./text";

/** Image sizes the gateway generates. */
export const IMAGE_SIZES = ["256x256", "512x512", "1024x1024"] as const;

/**
 * `POST /v1/images/generations` (OpenAI wire), the envelope: the prompt, and the count and size
 * the charge of a forwarded model is measured by. Everything else passes to a provider as sent.
 */
export const ImageGenerationRequest = z.looseObject({
  model: ModelName,
  prompt: z.string({ error: "expected a string" }).min(1, { error: "must not be empty" }),
  n: z.number({ error: "expected an integer" }).int().min(1, { error: "must be between 1 and 10" }).max(10, { error: "must be between 1 and 10" }).nullish(),
  size: z.string({ error: "expected a size such as 1024x1024" }).nullish(),
});
export type ImageGenerationRequest = z.infer<typeof ImageGenerationRequest>;

/** What the built-in image models take; images come back as `b64_json` (PNG). */
export const BuiltInImageRequest = z.object({
  model: ModelName,
  prompt: z.string({ error: "expected a string" }).min(1, { error: "must not be empty" }).max(32_000),
  n: z.number({ error: "expected an integer" }).int().min(1, { error: "must be between 1 and 4" }).max(4, { error: "must be between 1 and 4" }).optional(),
  size: z.enum(IMAGE_SIZES, { error: `expected one of ${IMAGE_SIZES.join(", ")}` }).optional(),
  response_format: z.literal("b64_json", { error: 'only "b64_json" is supported (the gateway keeps no image URLs)' }).optional(),
});
export type BuiltInImageRequest = z.infer<typeof BuiltInImageRequest>;

export const ImagesResponse = z.object({
  created: z.number().int(),
  data: z.array(z.object({ b64_json: z.string(), revised_prompt: z.string().optional() })),
  usage: z.object({
    input_tokens: z.number().int(),
    /** The prompt's tokens are all text: the built-in models take no input images. */
    input_tokens_details: z.object({ text_tokens: z.number().int(), image_tokens: z.number().int() }),
    output_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
});
export type ImagesResponse = z.infer<typeof ImagesResponse>;
