import { canonicalJson, type AuditChange } from "@gateway-keys/contract";
import { keyWindowsOf, wireSpendPolicy } from "../metering/spend-windows";
import type { StoredApiKey } from "../store/types";

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * The fields of a key an audit event compares, as the wire names them. Never the secret or its
 * hash: a rotation shows as `rotatedAt` and `hint` (prefix and last four characters) changing.
 */
function auditedFields(key: StoredApiKey): Record<string, unknown> {
  return {
    name: key.name,
    state: key.state,
    hint: key.hint,
    spendPolicy: wireSpendPolicy(keyWindowsOf(key)),
    loggingPolicy: key.loggingPolicy,
    modelPolicy: key.modelPolicy,
    rateLimitPolicy: key.rateLimitPolicy,
    expiresAt: isoOrNull(key.expiresAt),
    labels: key.labels,
    budgetAlertThresholds: key.alerts.budgetAlertThresholds,
    expiryWarningSeconds: key.alerts.expiryWarningSeconds,
    rotateAfterSeconds: key.alerts.rotateAfterSeconds,
    clientReference: key.clientReference,
    rotatedAt: isoOrNull(key.rotatedAt),
    revokedAt: isoOrNull(key.revokedAt),
    previousSecretExpiresAt: isoOrNull(key.previousSecretExpiresAt),
    teamId: key.teamId,
  };
}

/** Each field that differs between `before` (null: the resource is new; null fields left out) and `after`, with both values. */
export function fieldChanges(before: Record<string, unknown> | null, after: Record<string, unknown>): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const [field, value] of Object.entries(after)) {
    if (before === null ? value === null : canonicalJson(before[field] ?? null) === canonicalJson(value)) continue;
    changes[field] = { old: before?.[field] ?? null, new: value };
  }
  return changes;
}

/** The audited changes of a key (null `before`: it is new). */
export function keyChanges(before: StoredApiKey | null, after: StoredApiKey): Record<string, AuditChange> {
  return fieldChanges(before && auditedFields(before), auditedFields(after));
}
