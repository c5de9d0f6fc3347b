-- Rate limits of keys, counted here so that every process together admits what a key's policy
-- allows. Per key: a requests and a tokens bucket, each a level (units in it) that drains at the
-- limit per minute from the instant it was written (the gateway's clock, as metering/rate-buckets.ts
-- computes it in memory); and a slot row per request in flight under a concurrency limit, leased
-- like a spend reservation and renewed by its process while the request lives.

CREATE TABLE rate_buckets (
  key_id         TEXT PRIMARY KEY,
  requests_level DOUBLE PRECISION NOT NULL DEFAULT 0,
  requests_at    BIGINT NOT NULL DEFAULT 0,
  tokens_level   DOUBLE PRECISION NOT NULL DEFAULT 0,
  tokens_at      BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE request_slots (
  id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key_id     TEXT NOT NULL,
  holder     TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX request_slots_by_key ON request_slots (key_id, expires_at);

-- Admits one request of up to p_tokens tokens at p_at, or says which limit refuses it and for how
-- long (ms; Infinity when the request alone needs more tokens than a minute's limit). A NULL limit
-- is not set. The bucket row's lock serialises admissions of one key across every process, and
-- the slots are counted under it.
CREATE FUNCTION gateway_admit_rate(p_key TEXT, p_at BIGINT, p_rpm BIGINT, p_tpm BIGINT, p_concurrent INTEGER, p_tokens BIGINT,
  p_holder TEXT, p_lease_ms BIGINT)
RETURNS TABLE (refused_by TEXT, retry_after_ms DOUBLE PRECISION, slot BIGINT, requests_level DOUBLE PRECISION, tokens_level DOUBLE PRECISION)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  b rate_buckets%ROWTYPE;
  in_flight BIGINT;
BEGIN
  INSERT INTO rate_buckets (key_id) VALUES (p_key) ON CONFLICT (key_id) DO NOTHING;
  SELECT * INTO b FROM rate_buckets WHERE key_id = p_key FOR UPDATE;
  requests_level := CASE WHEN p_rpm IS NULL THEN 0
    ELSE GREATEST(0, b.requests_level - GREATEST(0, p_at - b.requests_at) * p_rpm / 60000.0) END;
  tokens_level := CASE WHEN p_tpm IS NULL THEN 0
    ELSE GREATEST(0, b.tokens_level - GREATEST(0, p_at - b.tokens_at) * p_tpm / 60000.0) END;
  refused_by := NULL;
  retry_after_ms := 0;
  slot := NULL;
  IF p_concurrent IS NOT NULL THEN
    SELECT COUNT(*) INTO in_flight FROM request_slots s WHERE s.key_id = p_key AND s.expires_at > clock_timestamp();
    IF in_flight >= p_concurrent THEN
      refused_by := 'concurrency';
      retry_after_ms := 1000;
    END IF;
  END IF;
  IF refused_by IS NULL AND p_rpm IS NOT NULL AND requests_level + 1 > p_rpm THEN
    refused_by := 'requests';
    retry_after_ms := (requests_level + 1 - p_rpm) * 60000.0 / p_rpm;
  END IF;
  IF refused_by IS NULL AND p_tpm IS NOT NULL AND tokens_level + p_tokens > p_tpm THEN
    refused_by := 'tokens';
    retry_after_ms := CASE WHEN p_tokens > p_tpm THEN 'Infinity'::DOUBLE PRECISION
      ELSE (tokens_level + p_tokens - p_tpm) * 60000.0 / p_tpm END;
  END IF;
  IF refused_by IS NULL THEN
    IF p_rpm IS NOT NULL THEN requests_level := requests_level + 1; END IF;
    IF p_tpm IS NOT NULL THEN tokens_level := tokens_level + p_tokens; END IF;
    -- A level is written as of the later of the two clocks: a process whose clock is behind never
    -- moves a bucket's instant back, which would let the next admission drain the same time twice.
    UPDATE rate_buckets SET requests_level = gateway_admit_rate.requests_level, requests_at = GREATEST(b.requests_at, p_at),
        tokens_level = gateway_admit_rate.tokens_level, tokens_at = GREATEST(b.tokens_at, p_at)
      WHERE key_id = p_key;
    IF p_concurrent IS NOT NULL THEN
      INSERT INTO request_slots (key_id, holder, expires_at)
        VALUES (p_key, p_holder, clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
        RETURNING id INTO slot;
    END IF;
  END IF;
  RETURN NEXT;
END
$$;

-- Ends an admitted request: frees its slot, and gives back to the tokens bucket what it did not use.
CREATE FUNCTION gateway_release_rate(p_key TEXT, p_slot BIGINT, p_unused BIGINT, p_tpm BIGINT, p_at BIGINT)
RETURNS VOID LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF p_slot IS NOT NULL THEN
    DELETE FROM request_slots WHERE id = p_slot;
  END IF;
  IF p_unused > 0 AND p_tpm IS NOT NULL THEN
    UPDATE rate_buckets SET
        tokens_level = GREATEST(0, GREATEST(0, tokens_level - GREATEST(0, p_at - tokens_at) * p_tpm / 60000.0) - p_unused),
        tokens_at = GREATEST(tokens_at, p_at)
      WHERE key_id = p_key;
  END IF;
END
$$;
