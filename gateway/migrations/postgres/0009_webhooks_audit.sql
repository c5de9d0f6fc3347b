-- Webhooks and the audit trail. A key's alert settings (one JSON column); the audit events,
-- append-only (triggers refuse UPDATE and DELETE) and chained per owner, with each owner's head;
-- webhook endpoints (secrets sealed with the gateway's encryption key); the outbox — events and
-- one delivery row per event and endpoint, written with the change that made the event; and one
-- row per alert sent (key, kind, window or instant, threshold), whose primary key makes it once-only.

ALTER TABLE api_keys ADD COLUMN alerts TEXT NOT NULL DEFAULT '{}';

CREATE TABLE audit_events (
  owner_id        TEXT NOT NULL,
  seq             BIGINT NOT NULL,
  id              TEXT NOT NULL UNIQUE,
  time            BIGINT NOT NULL,
  actor           TEXT NOT NULL,          -- JSON {kind, id, hint}
  action          TEXT NOT NULL,
  key_id          TEXT,
  webhook_id      TEXT,
  version_before  BIGINT,
  version_after   BIGINT,
  changes         TEXT NOT NULL,          -- JSON {field: {old, new}}
  idempotency_key TEXT,
  request_id      TEXT,
  prev_hash       TEXT NOT NULL,
  hash            TEXT NOT NULL,
  PRIMARY KEY (owner_id, seq)
);
CREATE INDEX audit_events_by_key ON audit_events (owner_id, key_id, seq);
CREATE FUNCTION gateway_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only';
END
$$;
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION gateway_audit_append_only();
CREATE TABLE audit_heads (
  owner_id TEXT PRIMARY KEY,
  seq      BIGINT NOT NULL,
  hash     TEXT NOT NULL
);

CREATE TABLE webhooks (
  seq                        BIGSERIAL PRIMARY KEY,
  id                         TEXT NOT NULL UNIQUE,
  owner_id                   TEXT NOT NULL,
  url                        TEXT NOT NULL,
  events                     TEXT NOT NULL,  -- JSON array of event types
  label_selector             TEXT NOT NULL,  -- JSON object
  enabled                    INTEGER NOT NULL,
  version                    INTEGER NOT NULL,
  sealed_secret              BYTEA NOT NULL,
  secret_hint                TEXT NOT NULL,
  sealed_previous_secret     BYTEA,
  previous_secret_expires_at BIGINT,
  created_at                 BIGINT NOT NULL,
  updated_at                 BIGINT NOT NULL,
  deleted_at                 BIGINT
);
CREATE INDEX webhooks_by_owner ON webhooks (owner_id, seq);

CREATE TABLE webhook_events (
  id         TEXT PRIMARY KEY,
  owner_id   TEXT NOT NULL,
  type       TEXT NOT NULL,
  payload    TEXT NOT NULL,            -- the JSON body sent, byte for byte on every attempt
  created_at BIGINT NOT NULL
);
CREATE TABLE webhook_deliveries (
  seq             BIGSERIAL PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  webhook_id      TEXT NOT NULL,
  event_id        TEXT NOT NULL,
  status          TEXT NOT NULL,       -- pending | delivered | failed
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  next_attempt_at BIGINT,
  lease_until     BIGINT,
  created_at      BIGINT NOT NULL,
  delivered_at    BIGINT,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);

CREATE TABLE alert_marks (
  key_id        TEXT NOT NULL,
  kind          TEXT NOT NULL,         -- budget_threshold | expiring | expired | rotation_due
  at            BIGINT NOT NULL,      -- the window's start, the expiry, or the secret's creation (ms)
  threshold_ppm BIGINT NOT NULL,      -- the threshold in millionths; 0 for the other kinds
  created_at    BIGINT NOT NULL,
  PRIMARY KEY (key_id, kind, at, threshold_ppm)
);
