-- Holdings — a reservation a process keeps for its next requests of a key, so most of them
-- reserve in its memory and make one round trip (the settle) instead of two.

-- The function's previous signature goes; functions/gateway_spend_batch.sql makes its new one after migrating.
DROP FUNCTION IF EXISTS gateway_spend_batch(BIGINT[], TEXT[], TEXT[], TEXT[], TEXT[], INTEGER[], BIGINT[], BIGINT[], TEXT[], TEXT[],
  INTEGER[], INTEGER[], TEXT[], BIGINT[], TEXT, BIGINT);
