-- Extensions `client_reference` (a caller's own name for a key, unique among the owner's keys
-- that are not revoked, so a crashed creator finds the key it made) and `rotation_grace` (the
-- secret a rotation replaced keeps working until an expiry). Existing keys have neither.

ALTER TABLE api_keys ADD COLUMN client_reference TEXT;
ALTER TABLE api_keys ADD COLUMN previous_secret_hash BLOB;
ALTER TABLE api_keys ADD COLUMN previous_secret_expires_at INTEGER;
CREATE UNIQUE INDEX api_keys_live_by_reference ON api_keys (owner_id, client_reference)
  WHERE client_reference IS NOT NULL AND state <> 'revoked';
CREATE UNIQUE INDEX api_keys_by_previous_hash ON api_keys (previous_secret_hash)
  WHERE previous_secret_hash IS NOT NULL;
