import type { DatabaseSync, StatementSync } from "node:sqlite";
import { API_KEYS, PROVISIONING_KEYS, REQUEST_LOGS } from "../tables";

const API_KEY_COLUMNS = API_KEYS.selectList(undefined, {
  spent_micros: "(SELECT IFNULL(SUM(u.spent_micros), 0) FROM usage_counters u WHERE u.key_id = api_keys.id)",
  last_request_at: "(SELECT MAX(u.last_request_at) FROM usage_counters u WHERE u.key_id = api_keys.id)",
});
const placeholders = (count: number) => Array.from({ length: count }, () => "?").join(", ");

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
    schemaVersion: prepare("PRAGMA user_version"),

    insertProvisioningKey: prepare(
      `INSERT INTO provisioning_keys (${PROVISIONING_KEYS.insertColumns.join(", ")}) VALUES (${placeholders(PROVISIONING_KEYS.insertColumns.length)})`,
    ),
    provisioningKeyByHash: prepare(`SELECT ${PROVISIONING_KEYS.selectList()} FROM provisioning_keys WHERE secret_hash = ?`),
    revokeProvisioningKey: prepare("UPDATE provisioning_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),

    // Two indexed look-ups: a current secret, or a secret a grace rotation replaced.
    apiKeyByHash: prepare(
      `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE secret_hash = :hash
      UNION ALL SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE previous_secret_hash = :hash LIMIT 1`,
      true,
    ),
    liveApiKeyByReference: prepare(
      `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE owner_id = ? AND client_reference = ? AND state <> 'revoked'`,
      true,
    ),
    apiKeyById: prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ? AND owner_id = ?`, true),
    apiKeyByIdOfAnyOwner: prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`, true),
    // :selectors is a JSON array of [name, value] pairs (value null: any); each must match.
    // :team_ids, a JSON array of team ids (null: any team or none).
    listApiKeys: prepare(
      `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE owner_id = :owner_id AND seq > :after_seq
        AND (:team_ids IS NULL OR team_id IN (SELECT value FROM json_each(:team_ids)))
        AND NOT EXISTS (
          SELECT 1 FROM json_each(:selectors) s
          WHERE NOT EXISTS (
            SELECT 1 FROM json_each(api_keys.labels) l
            WHERE l.key = json_extract(s.value, '$[0]') AND (json_extract(s.value, '$[1]') IS NULL OR l.value = json_extract(s.value, '$[1]'))))
        ORDER BY seq LIMIT :limit`,
      true,
    ),
    countApiKeysByState: prepare("SELECT state, COUNT(*) AS n FROM api_keys WHERE owner_id = ? GROUP BY state"),
    // Positional parameters in the order of the codec's columns (store/tables.ts).
    insertApiKey: prepare(`INSERT INTO api_keys (${API_KEYS.insertColumns.join(", ")}) VALUES (${placeholders(API_KEYS.insertColumns.length)})`),
    updateApiKey: prepare(
      `UPDATE api_keys SET ${API_KEYS.updateColumns.map((name) => `${name} = ?`).join(", ")} WHERE id = ? AND version = ?`,
    ),

    idempotencyRecord: prepare(`SELECT fingerprint, status, sealed_body, expires_at FROM idempotency_records
      WHERE owner_id = ? AND method = ? AND operation = ? AND idem_key = ?`),
    // An expired record is replaced: its key may start a new operation.
    claimIdempotencyKey: prepare(`INSERT OR REPLACE INTO idempotency_records
        (owner_id, method, operation, idem_key, fingerprint, status, sealed_body, created_at, expires_at)
      VALUES (?, ?, ?, ?, ?, 0, X'', ?, ?)`),
    completeIdempotencyKey: prepare(`UPDATE idempotency_records SET status = ?, sealed_body = ?
      WHERE owner_id = ? AND method = ? AND operation = ? AND idem_key = ?`),
    purgeIdempotency: prepare("DELETE FROM idempotency_records WHERE expires_at <= :now"),
    spentSince: prepare("SELECT IFNULL(SUM(spent_micros), 0) AS spent FROM spend_days WHERE key_id = ? AND day >= ?", true),
    spendDays: prepare("SELECT day, requests, spent_micros FROM spend_days WHERE key_id = ? AND day >= ? ORDER BY day", true),

    // The two statements of every model request take positional parameters (faster to bind), in
    // the order of their column lists.
    insertLog: prepare(`INSERT INTO request_logs (${REQUEST_LOGS.insertColumns.join(", ")}) VALUES (${placeholders(REQUEST_LOGS.insertColumns.length)})`),
    countUsage: prepare(`INSERT INTO usage_counters (key_id, model, owner_id, total, succeeded, rejected, spent_micros, last_request_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (key_id, model) DO UPDATE SET total = total + excluded.total, succeeded = succeeded + excluded.succeeded,
        rejected = rejected + excluded.rejected, spent_micros = spent_micros + excluded.spent_micros,
        last_request_at = MAX(IFNULL(last_request_at, 0), excluded.last_request_at)`),
    countDay: prepare(`INSERT INTO spend_days (key_id, day, owner_id, requests, spent_micros) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (key_id, day) DO UPDATE SET requests = requests + excluded.requests, spent_micros = spent_micros + excluded.spent_micros`),
    countTeamDay: prepare(`INSERT INTO team_spend_days (team_id, day, owner_id, requests, spent_micros) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (team_id, day) DO UPDATE SET requests = requests + excluded.requests, spent_micros = spent_micros + excluded.spent_micros`),
    usageByOwner: prepare(
      "SELECT key_id, model, total, succeeded, rejected, spent_micros FROM usage_counters WHERE owner_id = ? ORDER BY key_id, model",
      true,
    ),

    // Counted over the owner's logs by sequence (the owner index), kept to the span by time.
    logTimeline: prepare(
      // node:sqlite binds numbers as REAL, so the bucket is cut with % (which works on integers), not /.
      `SELECT l.created_at - l.created_at % :bucket_ms AS bucket, l.model, l.status, COUNT(*) AS requests, SUM(l.cost_micros) AS cost_micros
      FROM request_logs l JOIN api_keys k ON k.id = l.key_id
      WHERE l.owner_id = :owner_id AND (:key_id IS NULL OR l.key_id = :key_id)
        AND (:team_ids IS NULL OR k.team_id IN (SELECT value FROM json_each(:team_ids)))
        AND l.created_at >= :since AND l.created_at < :until AND l.created_at > :now - k.retention_days * :day_ms
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      true,
    ),
    // A row past its key's retention is hidden at once, whether or not the purge has run yet.
    listLogs: prepare(
      `SELECT ${REQUEST_LOGS.selectList("l")}
      FROM request_logs l JOIN api_keys k ON k.id = l.key_id
      WHERE l.owner_id = :owner_id AND l.seq < :before_seq AND (:key_id IS NULL OR l.key_id = :key_id)
        AND (:team_ids IS NULL OR k.team_id IN (SELECT value FROM json_each(:team_ids)))
        AND l.created_at > :now - k.retention_days * :day_ms
      ORDER BY l.seq DESC LIMIT :limit`,
      true,
    ),
    // The first condition only narrows the scan to the age index: no retention is shorter than a day.
    purgeLogs: prepare(`DELETE FROM request_logs WHERE seq IN (
      SELECT l.seq FROM request_logs l JOIN api_keys k ON k.id = l.key_id
      WHERE l.created_at <= :now - :day_ms AND l.created_at <= :now - k.retention_days * :day_ms)`),
    // Deliveries end within hours of their event (the last retry), so their creation time dates them.
    purgeDeliveries: prepare("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at <= :cutoff"),
    purgeEvents: prepare(`DELETE FROM webhook_events
      WHERE created_at <= :cutoff AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)`),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
