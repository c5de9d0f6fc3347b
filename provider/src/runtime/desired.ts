import {
  CreateApiKeyRequest,
  fieldIssues,
  formatUnits,
  keyKindOf,
  parseUnits,
  SettableKeyState,
  type FieldIssue,
} from "@gateway-keys/contract";
import type { ApiKeyState } from "../inputs";

/** The engine's placeholder for a value not known until apply (an output of another resource). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A key's inputs after `check`: validated, defaults filled, amounts in canonical form. */
export interface DesiredKey {
  name: string;
  state: "active" | "disabled";
  spendPolicy?: { limitUnits: string; currency: "unit" };
  loggingPolicy: ApiKeyState["loggingPolicy"];
  modelPolicy: ApiKeyState["modelPolicy"];
  rotationTrigger?: unknown;
  connection?: { baseUrl?: string; provisioningKey?: string };
  /** An existing key to take over instead of creating one. */
  adoptKeyId?: string;
}

/** The inputs `check` returns, or the failures that stop the preview. */
export type CheckOutcome = { inputs: DesiredKey; failures: [] } | { inputs: Record<string, unknown>; failures: FieldIssue[] };

function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * Validates a program's inputs with the contract's own schemas and fills the defaults, so a bad
 * program fails at preview, naming each property path and what is allowed, with no gateway call.
 * Values not known until apply are passed through and checked by the gateway then.
 */
export function checkInputs(news: Record<string, unknown>): CheckOutcome {
  const issues: FieldIssue[] = [];
  const body = {
    name: news.name,
    ...(news.spendPolicy === undefined ? {} : { spendPolicy: news.spendPolicy }),
    ...(news.loggingPolicy === undefined ? {} : { loggingPolicy: news.loggingPolicy }),
    ...(news.modelPolicy === undefined ? {} : { modelPolicy: news.modelPolicy }),
  };
  if (containsUnknown(body) || containsUnknown(news.state)) return { inputs: news as unknown as DesiredKey, failures: [] };

  const parsed = CreateApiKeyRequest.safeParse(body);
  if (!parsed.success) issues.push(...fieldIssues(parsed.error));
  const state = SettableKeyState.safeParse(news.state ?? "active");
  if (!state.success) issues.push({ path: "state", message: state.error.issues[0]!.message });
  issues.push(...checkConnection(news.connection));
  if (news.adoptKeyId !== undefined && (typeof news.adoptKeyId !== "string" || !/^key_[A-Za-z0-9]{1,60}$/.test(news.adoptKeyId))) {
    issues.push({ path: "adoptKeyId", message: "expected the id of an existing key, e.g. key_0r4B9TXiCfin7DT82uB3" });
  }
  if (issues.length > 0 || !parsed.success || !state.success) return { inputs: news, failures: issues };

  const { name, spendPolicy, loggingPolicy, modelPolicy } = parsed.data;
  const desired: DesiredKey = {
    name,
    state: state.data,
    loggingPolicy,
    modelPolicy: { mode: modelPolicy.mode, modelIds: [...modelPolicy.modelIds] },
  };
  // "100.50" and "100.5" are the same cap: keep one spelling so they never show as a change.
  if (spendPolicy) desired.spendPolicy = { limitUnits: formatUnits(parseUnits(spendPolicy.limitUnits)), currency: "unit" };
  if (news.rotationTrigger !== undefined) desired.rotationTrigger = news.rotationTrigger;
  if (news.connection !== undefined) desired.connection = news.connection as DesiredKey["connection"];
  if (typeof news.adoptKeyId === "string") desired.adoptKeyId = news.adoptKeyId;
  return { inputs: desired, failures: [] };
}

function checkConnection(connection: unknown): FieldIssue[] {
  if (connection === undefined || containsUnknown(connection)) return [];
  if (!connection || typeof connection !== "object" || Array.isArray(connection)) {
    return [{ path: "connection", message: "expected an object with baseUrl and/or provisioningKey" }];
  }
  const issues: FieldIssue[] = [];
  const { baseUrl, provisioningKey, ...rest } = connection as Record<string, unknown>;
  for (const field of Object.keys(rest)) issues.push({ path: `connection.${field}`, message: "unknown field; allowed: baseUrl, provisioningKey" });
  if (baseUrl !== undefined && !isHttpUrl(baseUrl)) {
    issues.push({ path: "connection.baseUrl", message: "expected an http:// or https:// URL, e.g. http://127.0.0.1:8787" });
  }
  if (provisioningKey !== undefined && (typeof provisioningKey !== "string" || keyKindOf(provisioningKey) !== "provisioning")) {
    // Never echo the value: it may be a real secret pasted into the wrong field.
    issues.push({ path: "connection.provisioningKey", message: "expected a provisioning key (gwp_ followed by 38 characters)" });
  }
  return issues;
}

/** Whether a value is an absolute http(s) URL. */
export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** The desired fields a PATCH can change, for comparing with what is stored. */
export const PATCHABLE_FIELDS = ["name", "state", "spendPolicy", "loggingPolicy", "modelPolicy"] as const;
export type PatchableField = (typeof PATCHABLE_FIELDS)[number];

/** Canonical JSON, so key order never shows as a change. */
export function canonical(value: unknown): string {
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The patchable fields whose desired value differs from the stored one. */
export function changedFields(stored: Partial<ApiKeyState>, desired: DesiredKey): PatchableField[] {
  return PATCHABLE_FIELDS.filter((field) => canonical(stored[field]) !== canonical(desired[field]));
}
