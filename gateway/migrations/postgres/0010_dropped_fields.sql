-- The request's fields that did not reach the model (hints, or fields a model drops), as a
-- JSON array of paths, null on the rows where everything was carried; gateway_spend_batch writes
-- them with the log rows (s_dropped), otherwise as migration 6's.

ALTER TABLE request_logs ADD COLUMN dropped_fields TEXT;

-- The function's previous signature goes; functions/gateway_spend_batch.sql makes its new one after migrating.
DROP FUNCTION IF EXISTS gateway_spend_batch(BIGINT[], BIGINT[], TEXT[], TEXT[], TEXT[], TEXT[], INTEGER[], BIGINT[], BIGINT[], TEXT[], TEXT[],
  INTEGER[], INTEGER[], BIGINT[], TEXT[], TEXT[], BIGINT[], BIGINT[], BIGINT[], BIGINT[], TEXT, BIGINT);
