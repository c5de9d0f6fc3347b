import type * as pulumi from "@pulumi/pulumi";
import { fieldIssues } from "@gateway-keys/contract";
import type { z } from "zod";
import type { ConnectionInput } from "./connection";
import type { ProviderContext } from "./context";
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

/** The inputs `check` hands on, or the failures that stop the preview. */
export interface ResourceCheckOutcome {
  inputs: Record<string, unknown>;
  failures: pulumi.dynamic.CheckFailure[];
}

/**
 * `check` of a resource that needs nothing beyond its schema and its connection (a team, a webhook
 * endpoint): validates the inputs ({@link validatedInputs}), fills the defaults and resolves the
 * connection, so a bad program fails at preview naming each property path and what is allowed,
 * with no gateway call.
 */
export function checkedResourceInputs<Schema extends z.ZodType<{ connection?: ConnectionInput }>>(
  context: ProviderContext,
  schema: Schema,
  news: Record<string, unknown>,
  shaping: readonly string[],
): ResourceCheckOutcome {
  const validated = validatedInputs(schema, news, shaping);
  if (validated.kind === "pending") return { inputs: news, failures: [] };
  if (validated.kind === "failed") return { inputs: news, failures: validated.failures };
  const inputs = { ...validated.desired, ...validated.pending };
  if (validated.pending.connection !== undefined) return { inputs, failures: [] };
  const resolution = context.connections.resolve(validated.desired.connection);
  // No property: the reason says which stack config or environment variable to set.
  if (!resolution.ok) return { inputs, failures: [{ property: "", reason: resolution.problem }] };
  return { inputs, failures: [] };
}
