-- Issue 37: teams. A team holds a spend policy (its windows), a rate limit policy, a model ceiling
-- and budget alert thresholds that its keys share. A key names its team (team_id) and may hold
-- more spend windows than its first (spend_windows: the whole list as JSON when there are two or
-- more; spend_limit_micros and reset_period keep the first). A request's log row names the team it
-- was charged to, and team spend is kept per team per day, as key spend is, so any window of a
-- team is a sum of days.

CREATE TABLE teams (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  id           TEXT NOT NULL UNIQUE,
  owner_id     TEXT NOT NULL,
  name         TEXT NOT NULL,
  labels       TEXT NOT NULL,      -- JSON object
  spend_windows TEXT,              -- JSON array of { limitMicros, resetPeriod }; NULL: no spend policy
  rate_limits  TEXT,               -- JSON RateLimitPolicy; NULL: none
  model_mode   TEXT NOT NULL,
  model_ids    TEXT NOT NULL,      -- JSON array
  alerts       TEXT NOT NULL,      -- JSON: budgetAlertThresholds
  version      INTEGER NOT NULL,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
CREATE INDEX teams_by_owner ON teams (owner_id, seq);

ALTER TABLE api_keys ADD COLUMN team_id TEXT;
ALTER TABLE api_keys ADD COLUMN spend_windows TEXT;
CREATE INDEX api_keys_by_team ON api_keys (team_id) WHERE team_id IS NOT NULL;

ALTER TABLE request_logs ADD COLUMN team_id TEXT;

CREATE TABLE team_spend_days (
  team_id      TEXT NOT NULL,
  day          INTEGER NOT NULL,   -- 00:00 UTC of the day the requests began, ms
  owner_id     TEXT NOT NULL,
  requests     INTEGER NOT NULL,
  spent_micros INTEGER NOT NULL,
  PRIMARY KEY (team_id, day)
) WITHOUT ROWID;

ALTER TABLE audit_events ADD COLUMN team_id TEXT;
