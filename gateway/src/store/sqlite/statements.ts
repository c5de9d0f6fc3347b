import type { DatabaseSync, StatementSync } from "node:sqlite";

const API_KEY_COLUMNS = `seq, id, owner_id, name, state, version, secret_hash, hint, spend_limit_micros,
  (SELECT IFNULL(SUM(u.spent_micros), 0) FROM usage_counters u WHERE u.key_id = api_keys.id) AS spent_micros, store_request, store_response, retention_days, model_mode, model_ids, created_at, updated_at, rotated_at, revoked_at`;

/** Every statement the store runs, prepared once: parsing SQL per request would dominate the hot path. */
export function prepareStatements(db: DatabaseSync) {

  const prepare = (sql: string, readBigInts = false): StatementSync => {
    const statement = db.prepare(sql);
    // Credits can exceed 2^53 micro-units (a 1e12-unit limit is 1e18 micros), so read them exactly.
    if (readBigInts) statement.setReadBigInts(true);
    return statement;
  };
  return {
    begin: prepare("BEGIN IMMEDIATE"),
    commit: prepare("COMMIT"),
    rollback: prepare("ROLLBACK"),
    syncFull: prepare("PRAGMA synchronous = FULL"),
    syncNormal: prepare("PRAGMA synchronous = NORMAL"),

    deletePendingClaims: prepare("DELETE FROM idempotency_keys WHERE state = 'pending'"),

    insertProvisioningKey: prepare(`INSERT INTO provisioning_keys (id, owner_id, secret_hash, hint, scopes, created_at, revoked_at)
      VALUES (:id, :owner_id, :secret_hash, :hint, :scopes, :created_at, :revoked_at)`),
    provisioningKeyByHash: prepare("SELECT * FROM provisioning_keys WHERE secret_hash = ?"),

    apiKeyByHash: prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE secret_hash = ?`, true),
    apiKeyById: prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ? AND owner_id = ?`, true),
    apiKeyByIdOfAnyOwner: prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`, true),
    listApiKeys: prepare(
      `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE owner_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      true,
    ),
    countApiKeysByState: prepare("SELECT state, COUNT(*) AS n FROM api_keys WHERE owner_id = ? GROUP BY state"),
    insertApiKey: prepare(`INSERT INTO api_keys (id, owner_id, name, state, version, secret_hash, hint, spend_limit_micros,
        store_request, store_response, retention_days, model_mode, model_ids, created_at, updated_at, rotated_at, revoked_at)
      VALUES (:id, :owner_id, :name, :state, :version, :secret_hash, :hint, :spend_limit_micros,
        :store_request, :store_response, :retention_days, :model_mode, :model_ids, :created_at, :updated_at, :rotated_at, :revoked_at)`),
    updateApiKey: prepare(`UPDATE api_keys SET name = :name, state = :state, version = :version, secret_hash = :secret_hash,
        hint = :hint, spend_limit_micros = :spend_limit_micros, store_request = :store_request,
        store_response = :store_response, retention_days = :retention_days, model_mode = :model_mode,
        model_ids = :model_ids, updated_at = :updated_at, rotated_at = :rotated_at, revoked_at = :revoked_at
      WHERE id = :id AND version = :read_version`),

    idempotencyRow: prepare(`SELECT fingerprint, state, status, sealed_reply, expires_at, lease_until FROM idempotency_keys
      WHERE owner_id = :owner_id AND method = :method AND path = :path AND idem_key = :idem_key`),
    upsertClaim: prepare(`INSERT OR REPLACE INTO idempotency_keys
        (owner_id, method, path, idem_key, fingerprint, state, status, sealed_reply, created_at, expires_at, lease_until)
      VALUES (:owner_id, :method, :path, :idem_key, :fingerprint, 'pending', NULL, NULL, :created_at, :expires_at, :lease_until)`),
    completeClaim: prepare(`UPDATE idempotency_keys SET state = 'completed', status = :status, sealed_reply = :sealed_reply
      WHERE owner_id = :owner_id AND method = :method AND path = :path AND idem_key = :idem_key AND state = 'pending'`),
    releaseClaim: prepare(`DELETE FROM idempotency_keys
      WHERE owner_id = :owner_id AND method = :method AND path = :path AND idem_key = :idem_key AND state = 'pending'`),
    purgeIdempotency: prepare(`DELETE FROM idempotency_keys
      WHERE (state = 'completed' AND expires_at <= :now) OR (state = 'pending' AND lease_until <= :now)`),

    // The two statements of every model request take positional parameters (faster to bind), in
    // the order of their column lists.
    insertLog: prepare(`INSERT INTO request_logs
        (id, owner_id, key_id, model, status, cost_micros, created_at, request_input, response_text)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    countUsage: prepare(`INSERT INTO usage_counters (key_id, model, owner_id, total, succeeded, rejected, spent_micros)
      VALUES (?, ?, ?, 1, ?, ?, ?)
      ON CONFLICT (key_id, model) DO UPDATE SET total = total + 1, succeeded = succeeded + excluded.succeeded,
        rejected = rejected + excluded.rejected, spent_micros = spent_micros + excluded.spent_micros`),
    usageByOwner: prepare(
      "SELECT key_id, model, total, succeeded, rejected, spent_micros FROM usage_counters WHERE owner_id = ? ORDER BY key_id, model",
      true,
    ),

    // A row past its key's retention is hidden at once, whether or not the purge has run yet.
    listLogs: prepare(
      `SELECT l.seq, l.id, l.owner_id, l.key_id, l.model, l.status, l.cost_micros, l.created_at, l.request_input, l.response_text
      FROM request_logs l JOIN api_keys k ON k.id = l.key_id
      WHERE l.owner_id = :owner_id AND l.seq < :before_seq AND (:key_id IS NULL OR l.key_id = :key_id)
        AND l.created_at > :now - k.retention_days * :day_ms
      ORDER BY l.seq DESC LIMIT :limit`,
      true,
    ),
    // The first condition only narrows the scan to the age index: no retention is shorter than a day.
    purgeLogs: prepare(`DELETE FROM request_logs WHERE seq IN (
      SELECT l.seq FROM request_logs l JOIN api_keys k ON k.id = l.key_id
      WHERE l.created_at <= :now - :day_ms AND l.created_at <= :now - k.retention_days * :day_ms)`),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
