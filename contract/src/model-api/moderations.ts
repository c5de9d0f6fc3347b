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

/** `POST /v1/moderations` (OpenAI wire): text inputs; `model` may be left out for the default. */
export const ModerationRequest = z.object({
  model: ModelName.optional(),
  input: z.union([z.string(), z.array(z.string({ error: "expected a string" })).min(1, { error: "must hold at least one text" })], {
    error: "expected a string or an array of strings (image inputs are not supported)",
  }),
});
export type ModerationRequest = z.infer<typeof ModerationRequest>;

export const ModerationResponse = z.object({
  id: z.string(),
  model: z.string(),
  results: z.array(
    z.object({
      flagged: z.boolean(),
      categories: z.record(z.string(), z.boolean()),
      category_scores: z.record(z.string(), z.number()),
    }),
  ),
});
export type ModerationResponse = z.infer<typeof ModerationResponse>;
