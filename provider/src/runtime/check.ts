import type * as pulumi from "@pulumi/pulumi";
import { fieldIssues } from "@gateway-keys/contract";
import type { Connections } from "./connection";
import { ApiKeyInputs, containsUnknown, type CheckedInputs } from "./shapes";

/** The inputs `check` hands on, or the failures that stop the preview. */
export interface CheckOutcome {
  inputs: CheckedInputs;
  failures: pulumi.dynamic.CheckFailure[];
}

/** Inputs that shape the key on the gateway: while one is not known yet, there is nothing to check against. */
const KEY_FIELDS = ["name", "state", "spendPolicy", "loggingPolicy", "modelPolicy"] as const;

/**
 * Validates a program's inputs with one parse of {@link ApiKeyInputs} (the contract's own schemas)
 * and fills the defaults, then resolves the key's connection, so a bad program fails at preview,
 * naming each property path and what is allowed, with no gateway call. A value not known until
 * apply passes through as is; the gateway checks it then.
 */
export function checkInputs(connections: Connections, news: Record<string, unknown>): CheckOutcome {
  if (KEY_FIELDS.some((field) => containsUnknown(news[field]))) return { inputs: news, failures: [] };
  const entries = Object.entries(news);
  const pending = Object.fromEntries(entries.filter(([, value]) => containsUnknown(value)));
  const parsed = ApiKeyInputs.safeParse(Object.fromEntries(entries.filter(([, value]) => !containsUnknown(value))));
  if (!parsed.success) {
    return { inputs: news, failures: fieldIssues(parsed.error).map((issue) => ({ property: issue.path, reason: issue.message })) };
  }
  if (pending.connection === undefined) {
    const resolution = connections.resolve(parsed.data.connection);
    if (!resolution.ok) return { inputs: news, failures: [{ property: "connection", reason: resolution.problem }] };
  }
  return { inputs: { ...parsed.data, ...pending }, failures: [] };
}
