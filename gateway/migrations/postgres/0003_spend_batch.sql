-- Many requests' settles and reservations in one call (one round trip, one commit).

-- gateway_spend_batch: functions/gateway_spend_batch.sql, created after migrating.

-- Sweeps every reservation whose lease ran out, giving each account back what it held: the
-- accounts first, in key order, as gateway_spend_batch locks them.
CREATE FUNCTION gateway_sweep_spend_reservations() RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  -- One instant for both steps, so only reservations of locked accounts are swept.
  cutoff TIMESTAMPTZ := clock_timestamp();
  swept  BIGINT;
BEGIN
  PERFORM 1 FROM spend_accounts
    WHERE key_id IN (SELECT key_id FROM spend_reservations WHERE expires_at <= cutoff)
    ORDER BY key_id FOR UPDATE;
  WITH gone AS (DELETE FROM spend_reservations WHERE expires_at <= cutoff RETURNING key_id, micros),
  per_key AS (SELECT key_id, SUM(micros)::BIGINT AS micros, COUNT(*) AS n FROM gone GROUP BY key_id),
  given_back AS (
    UPDATE spend_accounts a SET reserved_micros = a.reserved_micros - p.micros FROM per_key p WHERE a.key_id = p.key_id
  )
  SELECT COALESCE(SUM(n), 0)::BIGINT INTO swept FROM per_key;
  RETURN swept;
END
$$;
