-- Issue 37: teams (as sqlite/0009_teams.sql), and the holds of requests whose key has several
-- windows or a team: one row per request and subject (the key, its team), whose sum is what that
-- subject has in flight. A subject's window spend is the sum of its days since the window's start
-- (spend_days for a key, team_spend_days for a team); reservations of one subject queue on its
-- row in spend_subjects.

CREATE TABLE teams (
  seq           BIGSERIAL PRIMARY KEY,
  id            TEXT NOT NULL UNIQUE,
  owner_id      TEXT NOT NULL,
  name          TEXT NOT NULL,
  labels        TEXT NOT NULL,
  spend_windows TEXT,
  rate_limits   TEXT,
  model_mode    TEXT NOT NULL,
  model_ids     TEXT NOT NULL,
  alerts        TEXT NOT NULL,
  version       INTEGER NOT NULL,
  created_at    BIGINT NOT NULL,
  updated_at    BIGINT NOT NULL
);
CREATE INDEX teams_by_owner ON teams (owner_id, seq);

ALTER TABLE api_keys ADD COLUMN team_id TEXT, ADD COLUMN spend_windows TEXT;
CREATE INDEX api_keys_by_team ON api_keys (team_id) WHERE team_id IS NOT NULL;

ALTER TABLE request_logs ADD COLUMN team_id TEXT;

CREATE TABLE team_spend_days (
  team_id      TEXT NOT NULL,
  day          BIGINT NOT NULL,
  owner_id     TEXT NOT NULL,
  requests     BIGINT NOT NULL,
  spent_micros BIGINT NOT NULL,
  PRIMARY KEY (team_id, day)
);

ALTER TABLE audit_events ADD COLUMN team_id TEXT;

CREATE TABLE spend_subjects (
  subject TEXT PRIMARY KEY          -- a key id or a team id: the row its reservations lock
);
CREATE TABLE spend_holds (
  id         BIGSERIAL PRIMARY KEY,
  subject    TEXT NOT NULL,
  micros     BIGINT NOT NULL,
  holder     TEXT NOT NULL,         -- the process that holds it, which renews its lease
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX spend_holds_by_subject ON spend_holds (subject);
CREATE INDEX spend_holds_by_holder ON spend_holds (holder);

-- Processes that cache teams hear of every change and deletion of one on the keys' channel (the
-- team's id, which no key has).
CREATE FUNCTION gateway_notify_team_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gateway_key_changes', OLD.id);
  RETURN NULL;
END
$$;
CREATE TRIGGER teams_notify_change AFTER UPDATE OR DELETE ON teams
  FOR EACH ROW EXECUTE FUNCTION gateway_notify_team_change();
