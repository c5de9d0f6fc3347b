-- Key policies — a spend limit's reset period, an expiry, a rate limit policy and labels — and
-- spend per key and UTC day, so the spend of any calendar window is a sum of days. Spend from
-- before this schema has no day: it is kept on day 0 (the epoch), inside a lifetime window only.

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
