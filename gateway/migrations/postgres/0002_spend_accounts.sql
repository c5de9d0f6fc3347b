-- Running spend totals per key, so a reservation is one indexed row update instead of an
-- advisory lock and two sums over growing tables (usage_counters, spend_reservations).

-- Per key: committed spend (the sum of its usage_counters rows) and the micros its reservation
-- rows hold (the sum of its spend_reservations rows, expired or not). Each is kept by the
-- statement that changes what it sums, in the same transaction, so it always equals the sum.
CREATE TABLE spend_accounts (
  key_id          TEXT PRIMARY KEY REFERENCES api_keys (id),
  spent_micros    BIGINT NOT NULL,
  reserved_micros BIGINT NOT NULL CHECK (reserved_micros >= 0)
);
INSERT INTO spend_accounts (key_id, spent_micros, reserved_micros)
  SELECT k.id,
    (SELECT COALESCE(SUM(u.spent_micros), 0) FROM usage_counters u WHERE u.key_id = k.id),
    (SELECT COALESCE(SUM(r.micros), 0) FROM spend_reservations r WHERE r.key_id = k.id)
  FROM api_keys k;

-- Every key has its account from its creation on.
CREATE FUNCTION gateway_open_spend_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO spend_accounts (key_id, spent_micros, reserved_micros) VALUES (NEW.id, 0, 0);
  RETURN NULL;
END
$$;
CREATE TRIGGER api_keys_open_spend_account AFTER INSERT ON api_keys
  FOR EACH ROW EXECUTE FUNCTION gateway_open_spend_account();
