-- An idempotency record is written in the same transaction as its operation, so it is never
-- pending; it is scoped to the operation (route pattern and decoded parameters), not the raw
-- path. Records of schema 1 are sealed under their raw path and cannot be matched to an
-- operation, so they are dropped: an upgrade forgets replies younger than their 24-hour lifetime.

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
