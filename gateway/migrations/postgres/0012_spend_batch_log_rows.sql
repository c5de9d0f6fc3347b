-- gateway_spend_batch takes its settles' log rows as one JSON array of request_logs rows (written
-- by the table's codec, store/tables.ts) instead of an array per column, so a column added to the
-- request log reaches it with no change of the function. Its previous signature goes;
-- functions/gateway_spend_batch.sql makes the new one after migrating. A process of the previous
-- release calls the previous signature: upgrade every process sharing the database together.

DROP FUNCTION IF EXISTS gateway_spend_batch(BIGINT[], BIGINT[], TEXT[], TEXT[], TEXT[], TEXT[], INTEGER[], BIGINT[], BIGINT[], TEXT[],
  TEXT[], TEXT[], INTEGER[], INTEGER[], BIGINT[], TEXT[], TEXT[], BIGINT[], BIGINT[], BIGINT[], BIGINT[], TEXT, BIGINT);
