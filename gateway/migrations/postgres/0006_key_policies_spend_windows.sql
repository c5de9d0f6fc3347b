-- Key policies — a spend limit's reset period, an expiry, a rate limit policy, labels — and
-- spend per key and UTC day, so the spend of any calendar window is a sum of days. Spend from
-- before this schema has no day: it is kept on day 0 (the epoch), inside a lifetime window only.

ALTER TABLE api_keys
  ADD COLUMN reset_period TEXT NOT NULL DEFAULT 'never' CHECK (reset_period IN ('never', 'daily', 'weekly', 'monthly')),
  ADD COLUMN expires_at BIGINT,
  ADD COLUMN rate_limits TEXT,                 -- JSON rate limit policy, NULL: none
  ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';  -- JSON object

CREATE TABLE spend_days (
  key_id       TEXT NOT NULL,
  day          BIGINT NOT NULL,                 -- 00:00 UTC of the day the requests began, ms
  owner_id     TEXT NOT NULL,
  requests     BIGINT NOT NULL,
  spent_micros BIGINT NOT NULL,
  PRIMARY KEY (key_id, day)
);
INSERT INTO spend_days (key_id, day, owner_id, requests, spent_micros)
  SELECT key_id, 0, MIN(owner_id), SUM(total), SUM(spent_micros) FROM usage_counters GROUP BY key_id;

-- The account now also follows the key's current window: window_spent_micros is the spend of
-- requests that began at or after window_start. A reservation whose window differs (the calendar
-- passed a boundary, or the period changed) first reads the window's spend again from spend_days,
-- under the account's row lock that settles take too, so the sum is exact.
ALTER TABLE spend_accounts ADD COLUMN window_start BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN window_spent_micros BIGINT NOT NULL DEFAULT 0;
UPDATE spend_accounts SET window_spent_micros = spent_micros;

-- The start of the window of p_period that holds p_at (ms): as the contract's windowStartOf.
CREATE FUNCTION gateway_window_start(p_period TEXT, p_at BIGINT) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_period
    WHEN 'daily' THEN (p_at / 86400000) * 86400000
    -- 1970-01-01 was a Thursday: Monday is three days before the epoch's weekday count.
    WHEN 'weekly' THEN (p_at / 86400000) * 86400000 - (((p_at / 86400000) + 3) % 7) * 86400000
    WHEN 'monthly' THEN (EXTRACT(EPOCH FROM date_trunc('month', to_timestamp(p_at / 1000.0) AT TIME ZONE 'UTC')) * 1000)::BIGINT
    ELSE 0
  END
$$;

-- Moves a locked account to the window of its key at p_at, when it is not there yet.
CREATE FUNCTION gateway_roll_spend_window(p_key_id TEXT, p_at BIGINT) RETURNS VOID LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  current_start BIGINT;
BEGIN
  SELECT gateway_window_start(k.reset_period, p_at) INTO current_start FROM api_keys k WHERE k.id = p_key_id;
  UPDATE spend_accounts a SET window_start = current_start,
      window_spent_micros = (SELECT COALESCE(SUM(d.spent_micros), 0) FROM spend_days d WHERE d.key_id = p_key_id AND d.day >= current_start)
    WHERE a.key_id = p_key_id AND a.window_start IS DISTINCT FROM current_start;
END
$$;

-- The function's previous signature goes; functions/gateway_spend_batch.sql makes its new one after migrating.
DROP FUNCTION IF EXISTS gateway_spend_batch(BIGINT[], BIGINT[], TEXT[], TEXT[], TEXT[], TEXT[], INTEGER[], BIGINT[], BIGINT[], TEXT[], TEXT[],
  INTEGER[], INTEGER[], BIGINT[], TEXT[], TEXT[], BIGINT[], BIGINT[], BIGINT[], TEXT, BIGINT);
