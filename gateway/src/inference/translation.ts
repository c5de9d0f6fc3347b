import type { z } from "zod";
import { describeIssues, fieldIssues, formatPath, specificIssues } from "@gateway-keys/contract";
import { GatewayError } from "../errors";
import { paramOf } from "../http/validation";

/**
 * Who a translated request is for, in words a client can act on: a built-in model, or a provider
 * of another wire. Every refusal of a translation names it, so the client knows the field is fine
 * on its own wire and cannot be carried where this model is served.
 */
export interface TranslationTarget {
  /** e.g. `the built-in model "echo-1"`, `the Anthropic Messages wire of model "smart"`. */
  readonly description: string;
}

export const builtInTarget = (modelId: string): TranslationTarget => ({ description: `the built-in model ${JSON.stringify(modelId)}` });

export const providerTarget = (wireName: string, modelId: string): TranslationTarget => ({
  description: `the ${wireName} wire that model ${JSON.stringify(modelId)} is served on`,
});

/**
 * Reads a request in its wire's translatable form: every field known, any other refused naming
 * it (400 `validation_failed`, `param` the field), never dropped.
 */
export function readTranslatable<Schema extends z.ZodType>(schema: Schema, body: unknown, target: TranslationTarget): z.infer<Schema> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const raw = specificIssues(result.error);
  const issues = fieldIssues(result.error).map((issue, index) => {
    const cause = raw[index]!;
    if (cause.code === "unrecognized_keys") {
      return { path: cause.keys.map((key) => formatPath([...cause.path, key])).join(", "), message: `cannot be carried to ${target.description}` };
    }
    // A value or a kind of part the translation does not know: say where it cannot go.
    if (cause.code === "invalid_value" || cause.code === "invalid_union") return { ...issue, message: `${issue.message}: cannot be carried to ${target.description}` };
    return issue;
  });
  return raiseInvalid(describeIssues(issues), paramOf(raw[0]));
}

/** A field the target wire has no way to say: 400 naming it and the target. */
export function untranslatable(param: string, target: TranslationTarget, why: string): never {
  return raiseInvalid(`${param}: cannot be carried to ${target.description}: ${why}`, param);
}

function raiseInvalid(detail: string, param: string | undefined): never {
  throw new GatewayError("validation_failed", `Invalid fields: ${detail}.`, param === undefined ? {} : { param });
}
