-- When each key and model was last asked for (a key's last use is the latest of its rows).

ALTER TABLE usage_counters ADD COLUMN last_request_at INTEGER;
UPDATE usage_counters SET last_request_at = (
  SELECT MAX(l.created_at) FROM request_logs l WHERE l.key_id = usage_counters.key_id AND l.model = usage_counters.model);
