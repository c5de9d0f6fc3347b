import { z } from "zod";

/** Pieces every text-generation wire shares. */

/** A model id in a request. */
export const ModelName = z.string({ error: "expected a model id string" }).min(1, { error: "must not be empty" }).max(128, {
  error: "must be at most 128 characters",
});

/** A bound on generated tokens. */
export const MaxOutputTokens = z
  .number({ error: "expected an integer number of tokens" })
  .int({ error: "expected an integer number of tokens" })
  .min(1, { error: "must be at least 1" });

/** Up to four stop sequences. */
export const StopSequences = z.array(z.string({ error: "expected a string" }), { error: "expected an array of strings" }).max(4, {
  error: "must hold at most 4 sequences",
});

/** Text content as an array of parts; parts of other kinds (images, files) are refused by name. */
export const TextContentParts = z.array(
  z.object({
    type: z.enum(["text", "input_text", "output_text"], { error: 'only text parts are supported ("text", "input_text" or "output_text")' }),
    text: z.string({ error: "expected a string" }),
  }),
);
export type TextContentParts = z.infer<typeof TextContentParts>;
