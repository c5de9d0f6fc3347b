import {
  CreateApiKeyRequest,
  fieldIssues,
  formatUnits,
  keyKindOf,
  parseUnits,
  SettableKeyState,
  type FieldIssue,
} from "@gateway-keys/contract";
import { containsUnknown, type DesiredKey } from "./shapes";

/** The inputs `check` returns, or the failures that stop the preview. */
export type CheckOutcome = { inputs: DesiredKey; failures: [] } | { inputs: Record<string, unknown>; failures: FieldIssue[] };

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
  const { adoptKeyId } = news;
  if (adoptKeyId !== undefined && !containsUnknown(adoptKeyId) && (typeof adoptKeyId !== "string" || !/^key_[A-Za-z0-9]{1,60}$/.test(adoptKeyId))) {
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
  if (baseUrl !== undefined) {
    const problem = baseUrlProblem(baseUrl);
    if (problem) issues.push({ path: "connection.baseUrl", message: problem });
  }
  if (provisioningKey !== undefined) {
    const problem = provisioningKeyProblem(provisioningKey);
    if (problem) issues.push({ path: "connection.provisioningKey", message: problem });
  }
  return issues;
}

/** What is wrong with a gateway URL, or undefined. It is stored in plain text, so it may hold no credentials. */
export function baseUrlProblem(value: unknown): string | undefined {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return "expected an http:// or https:// URL, e.g. http://127.0.0.1:8787";
  }
  if (typeof value !== "string" || (url.protocol !== "http:" && url.protocol !== "https:")) {
    return "expected an http:// or https:// URL, e.g. http://127.0.0.1:8787";
  }
  if (url.username || url.password) return "must not contain a user name or password (the URL is stored in plain text)";
  return undefined;
}

/** What is wrong with a provisioning key, or undefined. Never echoes the value: it may be a real secret in the wrong place. */
export function provisioningKeyProblem(value: unknown): string | undefined {
  if (typeof value === "string" && keyKindOf(value) === "provisioning") return undefined;
  return "expected a provisioning key (gwp_ followed by 38 characters)";
}
