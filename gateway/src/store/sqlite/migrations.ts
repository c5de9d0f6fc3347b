import type { DatabaseSync } from "node:sqlite";

/**
 * Schema migrations, applied in order. The database's `PRAGMA user_version` records how many have
 * run; each runs in its own transaction. Append new migrations; never edit one that has shipped.
 */
const MIGRATIONS: readonly string[] = [
  // 1: keys, request logs, usage counters, idempotency.
  `
  CREATE TABLE provisioning_keys (
    id          TEXT PRIMARY KEY,
    owner_id    TEXT NOT NULL,
    secret_hash BLOB NOT NULL UNIQUE,
    hint        TEXT NOT NULL,
    scopes      TEXT NOT NULL,            -- JSON array of scope names
    created_at  INTEGER NOT NULL,
    revoked_at  INTEGER
  );

  CREATE TABLE api_keys (
    -- AUTOINCREMENT: a sequence number is never reused, so cursors stay valid for ever.
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
    id                 TEXT NOT NULL UNIQUE,
    owner_id           TEXT NOT NULL,
    name               TEXT NOT NULL,
    state              TEXT NOT NULL CHECK (state IN ('active', 'disabled', 'revoked')),
    version            INTEGER NOT NULL CHECK (version >= 1),
    secret_hash        BLOB NOT NULL UNIQUE,
    hint               TEXT NOT NULL,
    spend_limit_micros INTEGER,           -- NULL: no cap; what was spent is the sum of usage_counters
    store_request      INTEGER NOT NULL,
    store_response     INTEGER NOT NULL,
    retention_days     INTEGER NOT NULL,
    model_mode         TEXT NOT NULL,
    model_ids          TEXT NOT NULL,     -- JSON array
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    rotated_at         INTEGER,
    revoked_at         INTEGER
  );
  CREATE INDEX api_keys_by_owner ON api_keys (owner_id, seq);

  -- Written on every model request, so every index here costs a page write per request: only
  -- the two the reads need. Ids are ~119 random bits, unique by construction, and never looked up.
  CREATE TABLE request_logs (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL,
    owner_id       TEXT NOT NULL,
    key_id         TEXT NOT NULL REFERENCES api_keys (id),
    model          TEXT NOT NULL,
    status         INTEGER NOT NULL,
    cost_micros    INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    request_input  TEXT,
    response_text  TEXT
  );
  CREATE INDEX request_logs_by_owner ON request_logs (owner_id, seq);
  CREATE INDEX request_logs_by_age ON request_logs (created_at);

  -- One row per key and model. The single source of a key's spend (the sum of its rows), so a
  -- model request writes one counter row and no key row.
  CREATE TABLE usage_counters (
    key_id       TEXT NOT NULL REFERENCES api_keys (id),
    model        TEXT NOT NULL,
    owner_id     TEXT NOT NULL,
    total        INTEGER NOT NULL,
    succeeded    INTEGER NOT NULL,
    rejected     INTEGER NOT NULL,
    spent_micros INTEGER NOT NULL,
    PRIMARY KEY (key_id, model)
  ) WITHOUT ROWID;
  CREATE INDEX usage_counters_by_owner ON usage_counters (owner_id);

  CREATE TABLE idempotency_keys (
    owner_id     TEXT NOT NULL,
    method       TEXT NOT NULL,
    path         TEXT NOT NULL,
    idem_key     TEXT NOT NULL,
    fingerprint  BLOB NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('pending', 'completed')),
    status       INTEGER,
    sealed_reply BLOB,                    -- AES-256-GCM; holds one-time secrets
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    lease_until  INTEGER NOT NULL,
    PRIMARY KEY (owner_id, method, path, idem_key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
  `,
  // 2: an idempotency record is written in the same transaction as its operation, so it is never
  // pending; it is scoped to the operation (route pattern and decoded parameters), not the raw
  // path. Records of schema 1 are sealed under their raw path and cannot be matched to an
  // operation, so they are dropped: an upgrade forgets replies younger than their 24-hour lifetime.
  `
  DROP TABLE idempotency_keys;
  CREATE TABLE idempotency_records (
    owner_id    TEXT NOT NULL,
    method      TEXT NOT NULL,
    operation   TEXT NOT NULL,            -- route pattern + canonical JSON of the decoded path parameters
    idem_key    TEXT NOT NULL,
    fingerprint BLOB NOT NULL,            -- SHA-256 of the canonical request body
    status      INTEGER NOT NULL,
    sealed_body BLOB NOT NULL,            -- AES-256-GCM; holds one-time secrets
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    PRIMARY KEY (owner_id, method, operation, idem_key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_records_by_expiry ON idempotency_records (expires_at);
  `,
  // 3: extensions `client_reference` (a caller's own name for a key, unique among the owner's keys
  // that are not revoked, so a crashed creator finds the key it made) and `rotation_grace` (the
  // secret a rotation replaced keeps working until an expiry). Existing keys have neither.
  `
  ALTER TABLE api_keys ADD COLUMN client_reference TEXT;
  ALTER TABLE api_keys ADD COLUMN previous_secret_hash BLOB;
  ALTER TABLE api_keys ADD COLUMN previous_secret_expires_at INTEGER;
  CREATE UNIQUE INDEX api_keys_live_by_reference ON api_keys (owner_id, client_reference)
    WHERE client_reference IS NOT NULL AND state <> 'revoked';
  CREATE UNIQUE INDEX api_keys_by_previous_hash ON api_keys (previous_secret_hash)
    WHERE previous_secret_hash IS NOT NULL;
  `,
  // 4: key policies — a spend limit's reset period, an expiry, a rate limit policy and labels — and
  // spend per key and UTC day, so the spend of any calendar window is a sum of days. Spend from
  // before this schema has no day: it is kept on day 0 (the epoch), inside a lifetime window only.
  `
  ALTER TABLE api_keys ADD COLUMN reset_period TEXT NOT NULL DEFAULT 'never';
  ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
  ALTER TABLE api_keys ADD COLUMN rate_limits TEXT;        -- JSON rate limit policy, NULL: none
  ALTER TABLE api_keys ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';  -- JSON object

  CREATE TABLE spend_days (
    key_id       TEXT NOT NULL,
    day          INTEGER NOT NULL,         -- 00:00 UTC of the day the requests began, ms
    owner_id     TEXT NOT NULL,
    requests     INTEGER NOT NULL,
    spent_micros INTEGER NOT NULL,
    PRIMARY KEY (key_id, day)
  ) WITHOUT ROWID;
  INSERT INTO spend_days (key_id, day, owner_id, requests, spent_micros)
    SELECT key_id, 0, MIN(owner_id), SUM(total), SUM(spent_micros) FROM usage_counters GROUP BY key_id;
  `,
  // 5: when each key and model was last asked for (a key's last use is the latest of its rows).
  `
  ALTER TABLE usage_counters ADD COLUMN last_request_at INTEGER;
  UPDATE usage_counters SET last_request_at = (
    SELECT MAX(l.created_at) FROM request_logs l WHERE l.key_id = usage_counters.key_id AND l.model = usage_counters.model);
  `,
  // 6: webhooks and the audit trail. A key's alert settings (one JSON column); the audit events,
  // append-only (triggers refuse UPDATE and DELETE) and chained per owner, with each owner's head;
  // webhook endpoints (secrets sealed with the gateway's encryption key); the outbox — events and
  // one delivery row per event and endpoint, written with the change that made the event; and one
  // row per alert sent (key, kind, window or instant, threshold), whose primary key makes it once-only.
  `
  ALTER TABLE api_keys ADD COLUMN alerts TEXT NOT NULL DEFAULT '{}';

  CREATE TABLE audit_events (
    owner_id        TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    id              TEXT NOT NULL UNIQUE,
    time            INTEGER NOT NULL,
    actor           TEXT NOT NULL,          -- JSON {kind, id, hint}
    action          TEXT NOT NULL,
    key_id          TEXT,
    webhook_id      TEXT,
    version_before  INTEGER,
    version_after   INTEGER,
    changes         TEXT NOT NULL,          -- JSON {field: {old, new}}
    idempotency_key TEXT,
    request_id      TEXT,
    prev_hash       TEXT NOT NULL,
    hash            TEXT NOT NULL,
    PRIMARY KEY (owner_id, seq)
  ) WITHOUT ROWID;
  CREATE INDEX audit_events_by_key ON audit_events (owner_id, key_id, seq);
  CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
    BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
  CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
    BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END;
  CREATE TABLE audit_heads (
    owner_id TEXT PRIMARY KEY,
    seq      INTEGER NOT NULL,
    hash     TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE webhooks (
    seq                        INTEGER PRIMARY KEY AUTOINCREMENT,
    id                         TEXT NOT NULL UNIQUE,
    owner_id                   TEXT NOT NULL,
    url                        TEXT NOT NULL,
    events                     TEXT NOT NULL,  -- JSON array of event types
    label_selector             TEXT NOT NULL,  -- JSON object
    enabled                    INTEGER NOT NULL,
    version                    INTEGER NOT NULL,
    sealed_secret              BLOB NOT NULL,
    secret_hint                TEXT NOT NULL,
    sealed_previous_secret     BLOB,
    previous_secret_expires_at INTEGER,
    created_at                 INTEGER NOT NULL,
    updated_at                 INTEGER NOT NULL,
    deleted_at                 INTEGER
  );
  CREATE INDEX webhooks_by_owner ON webhooks (owner_id, seq);

  CREATE TABLE webhook_events (
    id         TEXT PRIMARY KEY,
    owner_id   TEXT NOT NULL,
    type       TEXT NOT NULL,
    payload    TEXT NOT NULL,            -- the JSON body sent, byte for byte on every attempt
    created_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE webhook_deliveries (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    webhook_id      TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    status          TEXT NOT NULL,       -- pending | delivered | failed
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    next_attempt_at INTEGER,
    lease_until     INTEGER,
    created_at      INTEGER NOT NULL,
    delivered_at    INTEGER,
    UNIQUE (webhook_id, event_id)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);

  CREATE TABLE alert_marks (
    key_id        TEXT NOT NULL,
    kind          TEXT NOT NULL,         -- budget_threshold | expiring | expired | rotation_due
    at            INTEGER NOT NULL,      -- the window's start, the expiry, or the secret's creation (ms)
    threshold_ppm INTEGER NOT NULL,      -- the threshold in millionths; 0 for the other kinds
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (key_id, kind, at, threshold_ppm)
  ) WITHOUT ROWID;
  `,
  // 7: the request's fields that did not reach the model (hints, or fields a model drops), as a
  // JSON array of paths; null on the rows where everything was carried.
  `
  ALTER TABLE request_logs ADD COLUMN dropped_fields TEXT;
  `,
  // 8: extension secret_use. The previous secret's terms as its rotation set them (JSON: hint,
  // retireWhenIdleSeconds, inUseWarningAt; NULL for a key rotated before this schema) and its
  // retirement, which leaves the key's version alone. Per key and secret, its use (flushed from each
  // process's memory every few seconds, never per request) and its most recent clients. A previous
  // secret whose grace already ended is recorded as retired then, so no event is sent for it now.
  `
  ALTER TABLE api_keys ADD COLUMN previous_secret TEXT;
  ALTER TABLE api_keys ADD COLUMN previous_secret_retired_at INTEGER;
  ALTER TABLE api_keys ADD COLUMN previous_secret_retired_reason TEXT;  -- idle | expired | revoked | rotated
  UPDATE api_keys SET previous_secret_retired_at = previous_secret_expires_at, previous_secret_retired_reason = 'expired'
    WHERE previous_secret_hash IS NOT NULL AND previous_secret_expires_at <= CAST(unixepoch('subsec') * 1000 AS INTEGER);
  -- What the previous-secret scan reads every few seconds: keys whose previous secret may still authenticate.
  CREATE INDEX api_keys_live_previous_secret ON api_keys (id)
    WHERE previous_secret_hash IS NOT NULL AND previous_secret_retired_at IS NULL AND previous_secret IS NOT NULL;
  CREATE TABLE secret_use (
    key_id       TEXT NOT NULL,
    secret_hash  BLOB NOT NULL,
    counted_from INTEGER NOT NULL,  -- requests count those authenticated against the key as rotated at or after this (ms)
    last_used_at INTEGER,            -- NULL: not used since its figures started (a secret rotated away before any flush)
    requests     INTEGER NOT NULL,
    PRIMARY KEY (key_id, secret_hash)
  ) WITHOUT ROWID;
  CREATE TABLE secret_clients (
    key_id        TEXT NOT NULL,
    secret_hash   BLOB NOT NULL,
    user_agent    TEXT NOT NULL,     -- '' when none was sent
    address       TEXT NOT NULL,     -- '' when unknown
    first_seen_at INTEGER NOT NULL,
    last_seen_at  INTEGER NOT NULL,
    requests      INTEGER NOT NULL,
    PRIMARY KEY (key_id, secret_hash, user_agent, address)
  ) WITHOUT ROWID;
  `,
];

/** The schema version this build expects. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the database to {@link SCHEMA_VERSION}; refuses a database written by a newer build. */
export function migrate(db: DatabaseSync): void {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  const current = row.user_version;
  if (current > SCHEMA_VERSION) {
    throw new Error(`the database has schema version ${current}, newer than this gateway's ${SCHEMA_VERSION}; upgrade the gateway`);
  }
  for (let version = current; version < SCHEMA_VERSION; version++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec(MIGRATIONS[version]!);
      // PRAGMA takes no bound parameters; the value is our own integer.
      db.exec(`PRAGMA user_version = ${version + 1}`);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
}
