/**
 * The SQL of the PostgreSQL store, named so pg prepares each once per connection (parsing and
 * planning per request would cost more than running most of them). Column lists and meanings
 * follow the SQLite store's statements.ts; those of a table read and written through a codec come
 * from store/tables.ts.
 */
import { API_KEYS, PROVISIONING_KEYS, REQUEST_LOGS } from "../tables";

/** A query pg prepares once per connection under `name`. */
export interface NamedQuery {
  name: string;
  text: string;
}

const API_KEY_COLUMNS = API_KEYS.selectList("k", {
  spent_micros: "(SELECT COALESCE(SUM(u.spent_micros), 0) FROM usage_counters u WHERE u.key_id = k.id)::BIGINT",
  last_request_at: "(SELECT a.last_request_at FROM spend_accounts a WHERE a.key_id = k.id)",
});

/** `$from, $from+1, …`: `count` positional parameters. */
const parameters = (count: number, from = 1) => Array.from({ length: count }, (_, index) => `$${from + index}`).join(", ");
const KEY_UPDATED = API_KEYS.updateColumns.length;

const query = (name: string, text: string): NamedQuery => ({ name: `gateway_${name}`, text });

export const SQL = {
  insertProvisioningKey: query(
    "insert_provisioning_key",
    `INSERT INTO provisioning_keys (${PROVISIONING_KEYS.insertColumns.join(", ")}) VALUES (${parameters(PROVISIONING_KEYS.insertColumns.length)})`,
  ),
  provisioningKeyByHash: query("provisioning_key_by_hash", `SELECT ${PROVISIONING_KEYS.selectList()} FROM provisioning_keys WHERE secret_hash = $1`),
  revokeProvisioningKey: query("revoke_provisioning_key", "UPDATE provisioning_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL"),

  // Two indexed look-ups: a current secret, or a secret a grace rotation replaced.
  apiKeyByHash: query(
    "api_key_by_hash",
    `(SELECT ${API_KEY_COLUMNS} FROM api_keys k WHERE k.secret_hash = $1)
    UNION ALL (SELECT ${API_KEY_COLUMNS} FROM api_keys k WHERE k.previous_secret_hash = $1) LIMIT 1`,
  ),
  apiKeyById: query("api_key_by_id", `SELECT ${API_KEY_COLUMNS} FROM api_keys k WHERE k.id = $1 AND k.owner_id = $2`),
  // Held until the unit of work ends. NO KEY UPDATE, not UPDATE: it excludes every other change of
  // the key just the same, but not a foreign key's check (KEY SHARE on the key's row), such as
  // opening the key's spend account.
  apiKeyByIdHeld: query(
    "api_key_by_id_held",
    `SELECT ${API_KEY_COLUMNS} FROM api_keys k WHERE k.id = $1 AND k.owner_id = $2 FOR NO KEY UPDATE OF k`,
  ),
  liveApiKeyByReference: query(
    "live_api_key_by_reference",
    `SELECT ${API_KEY_COLUMNS} FROM api_keys k WHERE k.owner_id = $1 AND k.client_reference = $2 AND k.state <> 'revoked'`,
  ),
  listApiKeys: query(
    "list_api_keys",
    // $4: a JSON array of [name, value] selectors (value null: any); each must match. $5: team ids (null: any team or none).
    `SELECT ${API_KEY_COLUMNS} FROM api_keys k WHERE k.owner_id = $1 AND k.seq > $2
      AND ($5::TEXT[] IS NULL OR k.team_id = ANY ($5::TEXT[]))
      AND NOT EXISTS (
        SELECT 1 FROM jsonb_array_elements($4::jsonb) s
        WHERE NOT (CASE WHEN s->>1 IS NULL THEN k.labels::jsonb ? (s->>0) ELSE k.labels::jsonb @> jsonb_build_object(s->>0, s->>1) END))
      ORDER BY k.seq LIMIT $3`,
  ),
  countApiKeysByState: query("count_api_keys_by_state", "SELECT state, COUNT(*)::INTEGER AS n FROM api_keys WHERE owner_id = $1 GROUP BY state"),
  // Writes return the key as stored, in the same round trip.
  insertApiKey: query(
    "insert_api_key",
    `WITH k AS (
      INSERT INTO api_keys (${API_KEYS.insertColumns.join(", ")}) VALUES (${parameters(API_KEYS.insertColumns.length)})
      RETURNING *
    )
    SELECT ${API_KEY_COLUMNS} FROM k`,
  ),
  // The version check is in the statement: a key changed since it was read is not written (and
  // no row comes back).
  updateApiKey: query(
    "update_api_key",
    `WITH k AS (
      UPDATE api_keys SET (${API_KEYS.updateColumns.join(", ")}) = (${parameters(KEY_UPDATED)})
      WHERE id = $${KEY_UPDATED + 1} AND version = $${KEY_UPDATED + 2}
      RETURNING *
    )
    SELECT ${API_KEY_COLUMNS} FROM k`,
  ),

  // Claims the key, or (returning nothing) finds an unexpired record under it. An expired record is
  // replaced: its key may start a new operation. A concurrent claim's uncommitted insert makes
  // this one wait for its transaction's end.
  claimIdempotencyKey: query(
    "claim_idempotency_key",
    `INSERT INTO idempotency_records (owner_id, method, operation, idem_key, fingerprint, status, sealed_body, created_at, expires_at)
    VALUES ($1, $2, $3, $4, $5, 0, '\\x', $6, $7)
    ON CONFLICT (owner_id, method, operation, idem_key) DO UPDATE
      SET fingerprint = EXCLUDED.fingerprint, status = 0, sealed_body = EXCLUDED.sealed_body,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_records.expires_at <= EXCLUDED.created_at
    RETURNING 1 AS claimed`,
  ),
  idempotencyRecord: query(
    "idempotency_record",
    `SELECT fingerprint, status, sealed_body FROM idempotency_records
    WHERE owner_id = $1 AND method = $2 AND operation = $3 AND idem_key = $4`,
  ),
  completeIdempotencyKey: query(
    "complete_idempotency_key",
    `UPDATE idempotency_records SET status = $1, sealed_body = $2
    WHERE owner_id = $3 AND method = $4 AND operation = $5 AND idem_key = $6`,
  ),
  purgeIdempotency: query("purge_idempotency", "DELETE FROM idempotency_records WHERE expires_at <= $1"),
  spentSince: query(
    "spent_since",
    "SELECT COALESCE(SUM(spent_micros), 0)::BIGINT AS spent FROM spend_days WHERE key_id = $1 AND day >= $2",
  ),
  spentSinceEach: query(
    "spent_since_each",
    `SELECT (SELECT COALESCE(SUM(d.spent_micros), 0) FROM spend_days d WHERE d.key_id = q.key_id AND d.day >= q.since)::BIGINT AS spent
    FROM unnest($1::TEXT[], $2::BIGINT[]) WITH ORDINALITY AS q (key_id, since, n) ORDER BY q.n`,
  ),
  spendDays: query("spend_days", "SELECT day, requests, spent_micros FROM spend_days WHERE key_id = $1 AND day >= $2 ORDER BY day"),
  // What a key may still reserve at $2: its limit less its window's spend (read from the days when
  // the account is not at that window), every reservation row, live or not yet swept, and the live
  // holds of the other path (requests that began while the key was in a team with a spend policy).
  spendHeadroom: query(
    "spend_headroom",
    `SELECT k.spend_limit_micros - a.reserved_micros - CASE
        WHEN a.window_start = gateway_window_start(k.reset_period, $2) THEN a.window_spent_micros
        ELSE (SELECT COALESCE(SUM(d.spent_micros), 0) FROM spend_days d
          WHERE d.key_id = k.id AND d.day >= gateway_window_start(k.reset_period, $2))::BIGINT
      END - (SELECT COALESCE(SUM(h.micros), 0) FROM spend_holds h WHERE h.subject = k.id AND h.expires_at > clock_timestamp())::BIGINT AS headroom
    FROM api_keys k JOIN spend_accounts a ON a.key_id = k.id WHERE k.id = $1`,
  ),

  usageByOwner: query(
    "usage_by_owner",
    "SELECT key_id, model, total, succeeded, rejected, spent_micros FROM usage_counters WHERE owner_id = $1 ORDER BY key_id, model",
  ),

  // Only live leases are renewed: one that ran out may already have been counted out by another
  // process's reservation, and must not come back.
  // Only the rows this process knows it holds ($3): a row whose reservation's answer was lost in a
  // database fault (committed, but the process never learnt its id) lapses with its lease.
  renewReservations: query(
    "renew_reservations",
    `UPDATE spend_reservations SET expires_at = clock_timestamp() + $2 * INTERVAL '1 millisecond'
    WHERE holder = $1 AND id = ANY ($3::BIGINT[]) AND expires_at > clock_timestamp()
    RETURNING id`,
  ),
  // Undoes the charge of answers the client never received: settles sent in a batch whose outcome
  // a database fault hid ($1 log ids, $2 their created_at for the index). A row that is there (the
  // batch did commit) is recorded as the 503 the client got, and its cost comes off the key's
  // usage, day and account; a row that is not there needs nothing. Idempotent.
  voidSettles: query(
    "void_settles",
    `WITH old AS (
      SELECT seq, cost_micros AS cost FROM request_logs
      WHERE created_at = ANY ($2::BIGINT[]) AND id = ANY ($1::TEXT[]) AND status < 400
      FOR UPDATE
    ),
    voided AS (
      UPDATE request_logs l SET status = 503, cost_micros = 0, response_text = NULL FROM old WHERE l.seq = old.seq
      RETURNING l.key_id, l.team_id, l.model, l.created_at, old.cost
    ),
    team_days AS (
      UPDATE team_spend_days d SET spent_micros = d.spent_micros - v.cost
      FROM (SELECT team_id, (created_at / 86400000) * 86400000 AS day, SUM(cost)::BIGINT AS cost FROM voided WHERE team_id IS NOT NULL GROUP BY 1, 2) v
      WHERE d.team_id = v.team_id AND d.day = v.day
    ),
    counters AS (
      UPDATE usage_counters u SET succeeded = u.succeeded - v.n, spent_micros = u.spent_micros - v.cost
      FROM (SELECT key_id, model, COUNT(*) AS n, SUM(cost)::BIGINT AS cost FROM voided GROUP BY key_id, model) v
      WHERE u.key_id = v.key_id AND u.model = v.model
    ),
    days AS (
      UPDATE spend_days d SET spent_micros = d.spent_micros - v.cost
      FROM (SELECT key_id, (created_at / 86400000) * 86400000 AS day, SUM(cost)::BIGINT AS cost FROM voided GROUP BY 1, 2) v
      WHERE d.key_id = v.key_id AND d.day = v.day
    )
    UPDATE spend_accounts a SET spent_micros = a.spent_micros - v.cost, window_spent_micros = a.window_spent_micros - v.window_cost
    FROM (SELECT vo.key_id, SUM(vo.cost)::BIGINT AS cost,
        SUM(CASE WHEN vo.created_at >= acc.window_start THEN vo.cost ELSE 0 END)::BIGINT AS window_cost
      FROM voided vo JOIN spend_accounts acc ON acc.key_id = vo.key_id GROUP BY vo.key_id) v
    WHERE a.key_id = v.key_id`,
  ),
  // Settles, holdings given back and reservations of many requests in one round trip (migrations/postgres/functions/gateway_spend_batch.sql).
  spendBatch: query(
    "spend_batch",
    // Its 14 parameters: the log rows as JSON, then the arrays and values #sendSpendBatch passes in order.
    `SELECT gateway_spend_batch(${parameters(14)}) AS reservations`,
  ),
  // Holds of requests with several windows or a team (migrations/postgres/functions/gateway_reserve_holds.sql).
  reserveHolds: query("reserve_holds", "SELECT holds, refused_window FROM gateway_reserve_holds($1, $2, $3, $4, $5, $6, $7, $8)"),
  holdHeadroom: query("hold_headroom", "SELECT gateway_hold_headroom($1, $2, $3, $4, $5) AS headroom"),
  settleHolds: query("settle_holds", "SELECT gateway_settle_holds($1, $2, $3, $4)"),
  renewHolds: query(
    "renew_holds",
    `UPDATE spend_holds SET expires_at = clock_timestamp() + $2 * INTERVAL '1 millisecond'
    WHERE holder = $1 AND id = ANY ($3::BIGINT[]) AND expires_at > clock_timestamp()`,
  ),
  // Rate limits (migrations/postgres/functions/gateway_admit_rates.sql): one round trip to admit, one to release.
  admitRates: query(
    "admit_rates",
    "SELECT refused_by, retry_after_ms, slot, requests_level, tokens_level FROM gateway_admit_rates($1, $2, $3, $4, $5, $6, $7, $8)",
  ),
  releaseRates: query("release_rates", "SELECT gateway_release_rates($1, $2, $3, $4, $5)"),
  // Only slots of requests still in flight here, and only live ones (as reservations).
  renewRequestSlots: query(
    "renew_request_slots",
    `UPDATE request_slots SET expires_at = clock_timestamp() + $2 * INTERVAL '1 millisecond'
    WHERE id = ANY ($1::BIGINT[]) AND expires_at > clock_timestamp()`,
  ),
  purgeRequestSlots: query("purge_request_slots", "DELETE FROM request_slots WHERE expires_at <= clock_timestamp()"),
  // Gives each key's account back what its swept reservations held, in the same transaction.
  purgeReservations: query("purge_reservations", "SELECT gateway_sweep_spend_reservations() AS swept"),

  // $1 owner, $2 key or NULL, [$3, $4) the span, $5 the bucket, $6 now, $7 a day: logs past retention left out; $8 team ids or NULL.
  logTimeline: query(
    "log_timeline",
    `SELECT (l.created_at / $5::BIGINT) * $5::BIGINT AS bucket, l.model, l.status, COUNT(*)::BIGINT AS requests,
      SUM(l.cost_micros)::BIGINT AS cost_micros
    FROM request_logs l JOIN api_keys k ON k.id = l.key_id
    WHERE l.owner_id = $1 AND ($2::TEXT IS NULL OR l.key_id = $2) AND l.created_at >= $3 AND l.created_at < $4
      AND ($8::TEXT[] IS NULL OR k.team_id = ANY ($8::TEXT[]))
      AND l.created_at > $6 - k.retention_days * $7::BIGINT
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  ),
  // A row past its key's retention is hidden at once, whether or not the purge has run yet.
  listLogs: query(
    "list_logs",
    `SELECT ${REQUEST_LOGS.selectList("l")}
    FROM request_logs l JOIN api_keys k ON k.id = l.key_id
    WHERE l.owner_id = $1 AND l.seq < $2 AND ($3::TEXT IS NULL OR l.key_id = $3) AND ($7::TEXT[] IS NULL OR k.team_id = ANY ($7::TEXT[]))
      AND l.created_at > $4 - k.retention_days * $5::BIGINT
    ORDER BY l.seq DESC LIMIT $6`,
  ),
  // The first condition only narrows the scan to the age index: no retention is shorter than a day.
  purgeLogs: query(
    "purge_logs",
    `DELETE FROM request_logs l USING api_keys k
    WHERE k.id = l.key_id AND l.created_at <= $1 - $2::BIGINT AND l.created_at <= $1 - k.retention_days * $2::BIGINT`,
  ),
  // Deliveries end within hours of their event (the last retry), so their creation time dates them.
  purgeDeliveries: query("purge_deliveries", "DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at <= $1"),
  purgeEvents: query(
    "purge_events",
    "DELETE FROM webhook_events e WHERE e.created_at <= $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)",
  ),
  schemaVersion: query("schema_version", "SELECT COALESCE(MAX(version), 0)::INTEGER AS version FROM schema_migrations"),
} satisfies Record<string, NamedQuery>;
