-- Keys, request logs, usage counters, idempotency records, spend reservations.

CREATE TABLE provisioning_keys (
  id          TEXT PRIMARY KEY,
  owner_id    TEXT NOT NULL,
  secret_hash BYTEA NOT NULL UNIQUE,
  hint        TEXT NOT NULL,
  scopes      TEXT NOT NULL,            -- JSON array of scope names
  created_at  BIGINT NOT NULL,
  revoked_at  BIGINT
);

CREATE TABLE api_keys (
  -- An identity is never reused, so cursors stay valid for ever.
  seq                        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id                         TEXT NOT NULL UNIQUE,
  owner_id                   TEXT NOT NULL,
  name                       TEXT NOT NULL,
  state                      TEXT NOT NULL CHECK (state IN ('active', 'disabled', 'revoked')),
  version                    INTEGER NOT NULL CHECK (version >= 1),
  secret_hash                BYTEA NOT NULL UNIQUE,
  hint                       TEXT NOT NULL,
  spend_limit_micros         BIGINT,   -- NULL: no cap; what was spent is the sum of usage_counters
  store_request              INTEGER NOT NULL CHECK (store_request IN (0, 1)),
  store_response             INTEGER NOT NULL CHECK (store_response IN (0, 1)),
  retention_days             INTEGER NOT NULL,
  model_mode                 TEXT NOT NULL,
  model_ids                  TEXT NOT NULL,     -- JSON array
  created_at                 BIGINT NOT NULL,
  updated_at                 BIGINT NOT NULL,
  rotated_at                 BIGINT,
  revoked_at                 BIGINT,
  client_reference           TEXT,
  previous_secret_hash       BYTEA,
  previous_secret_expires_at BIGINT
);
CREATE INDEX api_keys_by_owner ON api_keys (owner_id, seq);
CREATE UNIQUE INDEX api_keys_live_by_reference ON api_keys (owner_id, client_reference)
  WHERE client_reference IS NOT NULL AND state <> 'revoked';
CREATE UNIQUE INDEX api_keys_by_previous_hash ON api_keys (previous_secret_hash)
  WHERE previous_secret_hash IS NOT NULL;

-- Written on every model request: only the indexes the reads need.
CREATE TABLE request_logs (
  seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id            TEXT NOT NULL,
  owner_id      TEXT NOT NULL,
  key_id        TEXT NOT NULL REFERENCES api_keys (id),
  model         TEXT NOT NULL,
  status        INTEGER NOT NULL,
  cost_micros   BIGINT NOT NULL,
  created_at    BIGINT NOT NULL,
  request_input TEXT,
  response_text TEXT
);
CREATE INDEX request_logs_by_owner ON request_logs (owner_id, seq);
CREATE INDEX request_logs_by_age ON request_logs (created_at);

-- One row per key and model; a key's spend is the sum of its rows.
CREATE TABLE usage_counters (
  key_id       TEXT NOT NULL REFERENCES api_keys (id),
  model        TEXT NOT NULL,
  owner_id     TEXT NOT NULL,
  total        BIGINT NOT NULL,
  succeeded    BIGINT NOT NULL,
  rejected     BIGINT NOT NULL,
  spent_micros BIGINT NOT NULL,
  PRIMARY KEY (key_id, model)
);
CREATE INDEX usage_counters_by_owner ON usage_counters (owner_id);

-- Written in the transaction of its operation. The primary key decides concurrent claims: a
-- second insert of the same key waits for the first transaction, then meets its record.
CREATE TABLE idempotency_records (
  owner_id    TEXT NOT NULL,
  method      TEXT NOT NULL,
  operation   TEXT NOT NULL,            -- route pattern + canonical JSON of the decoded path parameters
  idem_key    TEXT NOT NULL,
  fingerprint BYTEA NOT NULL,           -- SHA-256 of the canonical request body
  status      INTEGER NOT NULL,
  sealed_body BYTEA NOT NULL,           -- AES-256-GCM; holds one-time secrets
  created_at  BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL,
  PRIMARY KEY (owner_id, method, operation, idem_key)
);
CREATE INDEX idempotency_records_by_expiry ON idempotency_records (expires_at);

-- Spend held by model requests in flight, in any process. A row counts while its lease runs
-- (the database's clock, so processes' clocks never matter); the process holding it renews
-- the lease while it lives, so a killed process's reservations stop counting one lease later.
CREATE TABLE spend_reservations (
  id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id     TEXT NOT NULL,
  micros     BIGINT NOT NULL CHECK (micros >= 0),
  holder     TEXT NOT NULL,             -- the store instance (process) that renews it
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX spend_reservations_by_key ON spend_reservations (key_id, expires_at);
CREATE INDEX spend_reservations_by_holder ON spend_reservations (holder);

-- Every change of a key tells every process, in the changing transaction: LISTENers hear it when
-- it commits, and never hear of a change that rolled back.
CREATE FUNCTION gateway_notify_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gateway_key_changes', NEW.id);
  RETURN NULL;
END
$$;
CREATE TRIGGER api_keys_notify_change AFTER UPDATE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION gateway_notify_key_change();
