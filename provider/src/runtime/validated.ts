import type * as pulumi from "@pulumi/pulumi";
import { fieldIssues } from "@gateway-keys/contract";
import type { z } from "zod";
import { containsUnknown } from "./shapes";

/** A program's inputs checked against a resource's schema, or the failures that stop the preview. */
export type Validated<Desired> =
  | { kind: "pending"; inputs: Record<string, unknown> }
  | { kind: "failed"; failures: pulumi.dynamic.CheckFailure[] }
  | { kind: "valid"; desired: Desired; pending: Record<string, unknown> };

/**
 * Validates `declared` with one parse of `schema` (the contract's own schemas inside), defaults
 * filled, each failure naming its property path and what is allowed. While a field that shapes the
 * resource on the gateway (`shaping`) is not known until apply there is nothing to check against
 * (`pending`); any other value not known yet passes through as is, beside the parsed ones.
 */
export function validatedInputs<Schema extends z.ZodType>(
  schema: Schema,
  declared: Record<string, unknown>,
  shaping: readonly string[],
): Validated<z.output<Schema>> {
  if (shaping.some((field) => containsUnknown(declared[field]))) return { kind: "pending", inputs: declared };
  const entries = Object.entries(declared);
  const pending = Object.fromEntries(entries.filter(([, value]) => containsUnknown(value)));
  const parsed = schema.safeParse(Object.fromEntries(entries.filter(([, value]) => !containsUnknown(value))));
  if (!parsed.success) {
    return { kind: "failed", failures: fieldIssues(parsed.error).map((issue) => ({ property: issue.path, reason: issue.message })) };
  }
  return { kind: "valid", desired: parsed.data, pending };
}
