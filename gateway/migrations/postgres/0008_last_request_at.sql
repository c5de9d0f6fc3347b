-- When each key last had a model request (of any outcome): kept on its spend account by a
-- statement trigger on request_logs, whose inserts come only from gateway_spend_batch, which has
-- locked those keys' accounts already (so the update waits for no one).

ALTER TABLE spend_accounts ADD COLUMN last_request_at BIGINT;
UPDATE spend_accounts a SET last_request_at = (SELECT MAX(l.created_at) FROM request_logs l WHERE l.key_id = a.key_id);

CREATE FUNCTION gateway_note_last_requests() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE spend_accounts a SET last_request_at = GREATEST(COALESCE(a.last_request_at, 0), m.at)
    FROM (SELECT key_id, MAX(created_at) AS at FROM added GROUP BY key_id) m
    WHERE a.key_id = m.key_id;
  RETURN NULL;
END
$$;
CREATE TRIGGER request_logs_note_last_requests AFTER INSERT ON request_logs
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION gateway_note_last_requests();
