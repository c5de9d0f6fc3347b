import type { KeyState, Labels, ModelPolicy, RateLimitPolicy, ResetPeriod, Scope } from "@gateway-keys/contract";
import type { PreviousSecretRetireReason } from "./secret-use-tables";
import { NO_ALERTS, type ApiKeyUpdate, type KeyAlerts, type PreviousSecretTerms, type StoredApiKey, type StoredLogEntry, type StoredProvisioningKey, type TimelineRow, type UsageLine } from "./types";

// Rows of both stores, which share their column names and types. An integer column arrives as a
// bigint or a number depending on the driver (SQLite statements that read credits use
// setReadBigInts(true); the PostgreSQL pool reads BIGINT as bigint, INTEGER as number): the
// helpers below make credits bigints and everything else numbers.
type Int = bigint | number;
const num = (value: Int): number => Number(value);
const numOrNull = (value: Int | null): number | null => (value === null ? null : Number(value));
const big = (value: Int): bigint => BigInt(value);

/** Raw `api_keys` row. */
export interface ApiKeyRow {
  seq: Int;
  id: string;
  owner_id: string;
  name: string;
  state: string;
  version: Int;
  secret_hash: Uint8Array;
  hint: string;
  spend_limit_micros: Int | null;
  spent_micros: Int;
  store_request: Int;
  store_response: Int;
  retention_days: Int;
  model_mode: string;
  model_ids: string;
  created_at: Int;
  updated_at: Int;
  rotated_at: Int | null;
  revoked_at: Int | null;
  client_reference: string | null;
  previous_secret_hash: Uint8Array | null;
  previous_secret_expires_at: Int | null;
  reset_period: string;
  expires_at: Int | null;
  rate_limits: string | null;
  labels: string;
  /** JSON {@link KeyAlerts}. */
  alerts: string;
  last_request_at: Int | null;
  /** JSON {@link PreviousSecretTerms}, or null. */
  previous_secret: string | null;
  previous_secret_retired_at: Int | null;
  previous_secret_retired_reason: string | null;
}

export function apiKeyFromRow(row: ApiKeyRow): StoredApiKey {
  return {
    seq: num(row.seq),
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    state: row.state as KeyState,
    version: num(row.version),
    secretHash: Buffer.from(row.secret_hash),
    hint: row.hint,
    spendLimitMicros: row.spend_limit_micros === null ? null : big(row.spend_limit_micros),
    spentMicros: big(row.spent_micros),
    loggingPolicy: {
      storeRequest: num(row.store_request) === 1,
      storeResponse: num(row.store_response) === 1,
      retentionDays: num(row.retention_days),
    },
    modelPolicy: { mode: row.model_mode as ModelPolicy["mode"], modelIds: JSON.parse(row.model_ids) as string[] },
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    rotatedAt: numOrNull(row.rotated_at),
    revokedAt: numOrNull(row.revoked_at),
    clientReference: row.client_reference,
    previousSecretHash: row.previous_secret_hash === null ? null : Buffer.from(row.previous_secret_hash),
    previousSecretExpiresAt: numOrNull(row.previous_secret_expires_at),
    resetPeriod: row.reset_period as ResetPeriod,
    expiresAt: numOrNull(row.expires_at),
    rateLimitPolicy: row.rate_limits === null ? null : (JSON.parse(row.rate_limits) as RateLimitPolicy),
    labels: JSON.parse(row.labels) as Labels,
    alerts: { ...NO_ALERTS, ...(JSON.parse(row.alerts) as Partial<KeyAlerts>) },
    lastRequestAt: numOrNull(row.last_request_at),
    previousSecret: row.previous_secret === null ? null : (JSON.parse(row.previous_secret) as PreviousSecretTerms),
    previousSecretRetiredAt: numOrNull(row.previous_secret_retired_at),
    previousSecretRetiredReason: row.previous_secret_retired_reason as PreviousSecretRetireReason | null,
  };
}

/** The columns of extension `secret_use` on `api_keys`, as both stores write them. */
export function previousSecretColumns(key: Pick<ApiKeyUpdate, "previousSecret" | "previousSecretRetiredAt" | "previousSecretRetiredReason">) {
  return {
    previous_secret: key.previousSecret === null ? null : JSON.stringify(key.previousSecret),
    previous_secret_retired_at: key.previousSecretRetiredAt,
    previous_secret_retired_reason: key.previousSecretRetiredReason,
  };
}

/** The policy columns added with key policies, as both stores write them. */
export function policyColumns(key: { resetPeriod: ResetPeriod; expiresAt: number | null; rateLimitPolicy: RateLimitPolicy | null; labels: Labels; alerts: KeyAlerts }) {
  return {
    reset_period: key.resetPeriod,
    expires_at: key.expiresAt,
    rate_limits: key.rateLimitPolicy === null ? null : JSON.stringify(key.rateLimitPolicy),
    labels: JSON.stringify(key.labels),
    // Only what differs from no alerts, so a key without them stores '{}' (what the alert scan skips).
    alerts: JSON.stringify({
      ...(key.alerts.budgetAlertThresholds.length > 0 && { budgetAlertThresholds: key.alerts.budgetAlertThresholds }),
      ...(key.alerts.expiryWarningSeconds !== null && { expiryWarningSeconds: key.alerts.expiryWarningSeconds }),
      ...(key.alerts.rotateAfterSeconds !== null && { rotateAfterSeconds: key.alerts.rotateAfterSeconds }),
    }),
  };
}

export interface ProvisioningKeyRow {
  id: string;
  owner_id: string;
  secret_hash: Uint8Array;
  hint: string;
  scopes: string;
  created_at: Int;
  revoked_at: Int | null;
}

export function provisioningKeyFromRow(row: ProvisioningKeyRow): StoredProvisioningKey {
  return {
    id: row.id,
    ownerId: row.owner_id,
    secretHash: Buffer.from(row.secret_hash),
    hint: row.hint,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: num(row.created_at),
    revokedAt: numOrNull(row.revoked_at),
  };
}

export interface LogRow {
  seq: Int;
  id: string;
  owner_id: string;
  key_id: string;
  model: string;
  status: Int;
  cost_micros: Int;
  created_at: Int;
  request_input: string | null;
  response_text: string | null;
  /** A JSON array of field paths, or null when every field was carried. */
  dropped_fields: string | null;
}

export function logFromRow(row: LogRow): StoredLogEntry {
  return {
    seq: num(row.seq),
    id: row.id,
    ownerId: row.owner_id,
    keyId: row.key_id,
    model: row.model,
    status: num(row.status),
    costMicros: big(row.cost_micros),
    createdAt: num(row.created_at),
    requestInput: row.request_input,
    responseText: row.response_text,
    droppedFields: row.dropped_fields === null ? [] : (JSON.parse(row.dropped_fields) as string[]),
  };
}

/** The stored form of a log row's dropped fields: null when there are none (most rows). */
export const droppedFieldsColumn = (fields: readonly string[]): string | null => (fields.length === 0 ? null : JSON.stringify(fields));

export interface UsageRow {
  key_id: string;
  model: string;
  total: Int;
  succeeded: Int;
  rejected: Int;
  spent_micros: Int;
}

export function usageFromRow(row: UsageRow): UsageLine {
  return {
    keyId: row.key_id,
    model: row.model,
    total: num(row.total),
    succeeded: num(row.succeeded),
    rejected: num(row.rejected),
    spentMicros: big(row.spent_micros),
  };
}

export interface TimelineDbRow {
  bucket: Int;
  model: string;
  status: Int;
  requests: Int;
  cost_micros: Int;
}

export function timelineFromRow(row: TimelineDbRow): TimelineRow {
  return { bucket: num(row.bucket), model: row.model, status: num(row.status), requests: num(row.requests), costMicros: big(row.cost_micros) };
}
