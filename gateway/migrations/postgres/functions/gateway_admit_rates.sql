-- gateway_admit_rates: one request's admission under the rate limits of several subjects (a key's
-- policy and its team's, or a route's quota), all or none, across every process. Each subject is
-- admitted by migration 7's gateway_admit_rate (its bucket row locked, its slots counted), in the
-- order given: a key before its team, so two requests never wait on each other's rows. Returns one
-- row per subject up to the first that refuses; when one refuses, what the subjects before it
-- took (levels, slots) is undone with it, and their rows say only what they read.
CREATE OR REPLACE FUNCTION gateway_admit_rates(p_subjects TEXT[], p_at BIGINT, p_rpms BIGINT[], p_tpms BIGINT[],
  p_concurrents INTEGER[], p_tokens BIGINT, p_holder TEXT, p_lease_ms BIGINT)
RETURNS TABLE (refused_by TEXT, retry_after_ms DOUBLE PRECISION, slot BIGINT, requests_level DOUBLE PRECISION, tokens_level DOUBLE PRECISION)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  admitted RECORD;
BEGIN
  IF cardinality(p_subjects) = 1 THEN
    RETURN QUERY SELECT * FROM gateway_admit_rate(p_subjects[1], p_at, p_rpms[1], p_tpms[1], p_concurrents[1], p_tokens, p_holder, p_lease_ms);
    RETURN;
  END IF;
  -- Rows returned stay returned; the block's writes are rolled back when a subject refuses.
  BEGIN
    FOR s IN 1 .. cardinality(p_subjects) LOOP
      SELECT * INTO admitted FROM gateway_admit_rate(p_subjects[s], p_at, p_rpms[s], p_tpms[s], p_concurrents[s], p_tokens, p_holder, p_lease_ms);
      refused_by := admitted.refused_by;
      retry_after_ms := admitted.retry_after_ms;
      slot := admitted.slot;
      requests_level := admitted.requests_level;
      tokens_level := admitted.tokens_level;
      RETURN NEXT;
      IF admitted.refused_by IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'GWRRF', MESSAGE = 'a rate limit subject refused the request';
      END IF;
    END LOOP;
  EXCEPTION WHEN SQLSTATE 'GWRRF' THEN
    NULL;
  END;
END
$$;

-- gateway_release_rates: ends an admitted request under each subject it holds a place under.
CREATE OR REPLACE FUNCTION gateway_release_rates(p_subjects TEXT[], p_slots BIGINT[], p_tpms BIGINT[], p_unused BIGINT, p_at BIGINT)
RETURNS VOID LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  FOR s IN 1 .. cardinality(p_subjects) LOOP
    PERFORM gateway_release_rate(p_subjects[s], p_slots[s], p_unused, p_tpms[s], p_at);
  END LOOP;
END
$$;
