-- Keys, request logs, usage counters, idempotency.

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
