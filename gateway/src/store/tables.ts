import type { KeyState, Labels, ModelPolicy, RateLimitPolicy, ResetPeriod, Scope } from "@gateway-keys/contract";
import { column, holds, TableCodec } from "./row-codec";
import type { PreviousSecretRetireReason } from "./secret-use-tables";
import { spendWindowsColumn } from "./team-rows";
import {
  NO_ALERTS,
  type ApiKeyUpdate,
  type KeyAlerts,
  type NewApiKey,
  type NewLogEntry,
  type PreviousSecretTerms,
  type StoredApiKey,
  type StoredLogEntry,
  type StoredProvisioningKey,
} from "./types";

/**
 * The tables both stores read and write through a {@link TableCodec}: one line per column, in the
 * order the statements list them. A new column is one line here and one migration per database
 * (gateway/migrations/{sqlite,postgres}/NNNN_*.sql).
 */

/** Alerts as stored: only what differs from no alerts, so a key without them stores '{}' (what the alert scan skips). */
const alerts = column.custom<KeyAlerts>({
  write: (value) =>
    JSON.stringify({
      ...(value.budgetAlertThresholds.length > 0 && { budgetAlertThresholds: value.budgetAlertThresholds }),
      ...(value.expiryWarningSeconds !== null && { expiryWarningSeconds: value.expiryWarningSeconds }),
      ...(value.rotateAfterSeconds !== null && { rotateAfterSeconds: value.rotateAfterSeconds }),
    }),
  read: (stored) => ({ ...NO_ALERTS, ...(JSON.parse(stored as string) as Partial<KeyAlerts>) }),
});

/** A JSON array stored as null when empty, as most rows' is. */
const listOrNull = column.custom<readonly string[]>({
  write: (value) => (value.length === 0 ? null : JSON.stringify(value)),
  read: (stored) => (stored === null || stored === undefined ? [] : (JSON.parse(stored as string) as string[])),
});

/**
 * `api_keys`. `spent_micros` and `last_request_at` are not columns of the table but figures of
 * other tables (usage counters, spend accounts): each store's reads supply them (`selectList`'s
 * replacements), and nothing writes them.
 */
export const API_KEYS = new TableCodec<StoredApiKey, NewApiKey, ApiKeyUpdate>("api_keys", {
  seq: holds("seq", column.int, "never"),
  id: holds("id", column.text, "insert"),
  owner_id: holds("ownerId", column.text, "insert"),
  name: holds("name", column.text),
  state: holds("state", column.literal<KeyState>()),
  version: holds("version", column.int),
  secret_hash: holds("secretHash", column.bytes),
  hint: holds("hint", column.text),
  spend_limit_micros: holds("spendLimitMicros", column.nullable(column.credits)),
  spent_micros: holds("spentMicros", column.credits, "never"),
  store_request: holds("loggingPolicy.storeRequest", column.flag),
  store_response: holds("loggingPolicy.storeResponse", column.flag),
  retention_days: holds("loggingPolicy.retentionDays", column.int),
  model_mode: holds("modelPolicy.mode", column.literal<ModelPolicy["mode"]>()),
  model_ids: holds("modelPolicy.modelIds", column.json<string[]>()),
  created_at: holds("createdAt", column.int, "insert"),
  updated_at: holds("updatedAt", column.int),
  rotated_at: holds("rotatedAt", column.nullable(column.int)),
  revoked_at: holds("revokedAt", column.nullable(column.int)),
  client_reference: holds("clientReference", column.nullable(column.text), "insert"),
  previous_secret_hash: holds("previousSecretHash", column.nullable(column.bytes)),
  previous_secret_expires_at: holds("previousSecretExpiresAt", column.nullable(column.int)),
  reset_period: holds("resetPeriod", column.literal<ResetPeriod>()),
  expires_at: holds("expiresAt", column.nullable(column.int)),
  rate_limits: holds("rateLimitPolicy", column.nullable(column.json<RateLimitPolicy>())),
  labels: holds("labels", column.json<Labels>()),
  alerts: holds("alerts", alerts),
  last_request_at: holds("lastRequestAt", column.nullable(column.int), "never"),
  previous_secret: holds("previousSecret", column.nullable(column.json<PreviousSecretTerms>())),
  previous_secret_retired_at: holds("previousSecretRetiredAt", column.nullable(column.int)),
  previous_secret_retired_reason: holds("previousSecretRetiredReason", column.nullable(column.literal<PreviousSecretRetireReason>())),
  team_id: holds("teamId", column.nullable(column.text)),
  spend_windows: holds("spendWindows", column.nullable(spendWindowsColumn)),
});

/** `provisioning_keys`: keys of the account API, each bound to one owner. */
export const PROVISIONING_KEYS = new TableCodec<StoredProvisioningKey>("provisioning_keys", {
  id: holds("id", column.text),
  owner_id: holds("ownerId", column.text),
  secret_hash: holds("secretHash", column.bytes),
  hint: holds("hint", column.text),
  scopes: holds("scopes", column.json<Scope[]>()),
  created_at: holds("createdAt", column.int),
  revoked_at: holds("revokedAt", column.nullable(column.int)),
});

/** `request_logs`: one row per model request, written with its charge. */
export const REQUEST_LOGS = new TableCodec<StoredLogEntry, NewLogEntry>("request_logs", {
  seq: holds("seq", column.int, "never"),
  id: holds("id", column.text),
  owner_id: holds("ownerId", column.text),
  key_id: holds("keyId", column.text),
  model: holds("model", column.text),
  status: holds("status", column.int),
  cost_micros: holds("costMicros", column.credits),
  created_at: holds("createdAt", column.int),
  request_input: holds("requestInput", column.nullable(column.text)),
  response_text: holds("responseText", column.nullable(column.text)),
  dropped_fields: holds("droppedFields", listOrNull),
  team_id: holds("teamId", column.nullable(column.text)),
});
