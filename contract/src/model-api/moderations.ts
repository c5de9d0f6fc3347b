import { z } from "zod";
import { ModelName } from "./text";

/** The categories every moderation result scores. */
export const MODERATION_CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
] as const;
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

/** `POST /v1/moderations` (OpenAI wire), the envelope: `model` may be left out for the default. */
export const ModerationRequest = z.looseObject({
  model: ModelName.optional(),
  input: z.unknown().refine((input) => input !== undefined, { error: "required: a string or an array of inputs" }),
});
export type ModerationRequest = z.infer<typeof ModerationRequest>;

/** What the built-in moderation models take: text inputs. */
export const BuiltInModerationRequest = z.object({
  model: ModelName.optional(),
  input: z.union([z.string(), z.array(z.string({ error: "expected a string" })).min(1, { error: "must hold at least one text" })], {
    error: "expected a string or an array of strings (image inputs are not supported)",
  }),
});
export type BuiltInModerationRequest = z.infer<typeof BuiltInModerationRequest>;

export const ModerationResponse = z.object({
  id: z.string(),
  model: z.string(),
  results: z.array(
    z.object({
      flagged: z.boolean(),
      categories: z.record(z.string(), z.boolean()),
      category_scores: z.record(z.string(), z.number()),
      /** Which kinds of input each category was applied to (always `["text"]` for the built-in model). */
      category_applied_input_types: z.record(z.string(), z.array(z.string())),
    }),
  ),
});
export type ModerationResponse = z.infer<typeof ModerationResponse>;
