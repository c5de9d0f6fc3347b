-- Extension secret_use. The previous secret's terms as its rotation set them (JSON: hint,
-- retireWhenIdleSeconds, inUseWarningAt; NULL for a key rotated before this schema) and its
-- retirement, which leaves the key's version alone. Per key and secret, its use (flushed from each
-- process's memory every few seconds, never per request) and its most recent clients. A previous
-- secret whose grace already ended is recorded as retired then, so no event is sent for it now.

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
