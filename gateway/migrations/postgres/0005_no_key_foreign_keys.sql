-- The tables every model request writes check no foreign key. Each row's check locked its
-- key's api_keys row (FOR KEY SHARE) — on a hot key, in every batch of every process, creating
-- a multixact when two processes' batches overlapped — and cost about a tenth of each batch's
-- database CPU (measured calling gateway_spend_batch with 4 and 8 settles). It guarded nothing: keys are never deleted (a revoked
-- key keeps its row), and a request is logged only for a key it authenticated with.
-- Also gone: gateway_reserve_spend, which nothing calls since gateway_spend_batch (migration 3).

ALTER TABLE request_logs DROP CONSTRAINT request_logs_key_id_fkey;
ALTER TABLE usage_counters DROP CONSTRAINT usage_counters_key_id_fkey;
DROP FUNCTION IF EXISTS gateway_reserve_spend(TEXT, BIGINT, TEXT, BIGINT);
