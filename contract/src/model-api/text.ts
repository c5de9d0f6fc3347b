import { z } from "zod";

/**
 * Pieces every text-generation wire shares.
 *
 * Each text wire has two request schemas. The *envelope* (`ChatCompletionRequest`,
 * `ResponsesRequest`, `MessagesRequest`) checks only what the gateway itself reads — the model,
 * the output bound, streaming — and keeps every other field as sent, so a request to a provider of
 * the same wire passes through whole, fields added tomorrow included. The *translatable* form
 * (`…Translatable`) is strict: it lists every field a translation to another wire, or a built-in
 * model, understands, and an unknown field there is refused by name rather than dropped.
 */

/** A model id in a request. */
export const ModelName = z.string({ error: "expected a model id string" }).min(1, { error: "must not be empty" }).max(128, {
  error: "must be at most 128 characters",
});

/** A bound on generated tokens. */
export const MaxOutputTokens = z
  .number({ error: "expected an integer number of tokens" })
  .int({ error: "expected an integer number of tokens" })
  .min(1, { error: "must be at least 1" });

/** `stream` on every text wire. */
export const StreamFlag = z.boolean({ error: "expected true or false" });

/** A JSON Schema, as tools and structured output carry it: any object, passed on as it is. */
export const JsonSchemaObject = z.record(z.string(), z.unknown(), { error: "expected a JSON Schema object" });

/** A sampling parameter: a finite number. */
export const SamplingNumber = z.number({ error: "expected a number" });

/** Up to `max` stop sequences. */
export const stopSequences = (max: number) =>
  z.array(z.string({ error: "expected a string" }), { error: "expected an array of strings" }).max(max, {
    error: `must hold at most ${max} sequences`,
  });
