import type pg from "pg";
import { ADVISORY_LOCK_CLASS } from "./locks";

/**
 * Schema migrations, applied in order; `schema_migrations` records each one applied. Append new
 * migrations; never edit one that has shipped.
 *
 * The tables, columns and meanings are the SQLite store's (sqlite/migrations.ts, at its version 3),
 * so rows read the same way (store/rows.ts): times are milliseconds since the epoch in BIGINT,
 * credits integer micro-units in BIGINT, booleans 0/1 in INTEGER. What only a shared database
 * needs is added: spend reservations with a lease, the function that reserves, and the trigger
 * that tells every process of a changed key.
 */
const MIGRATIONS: readonly string[] = [
  // 1: keys, request logs, usage counters, idempotency records, spend reservations.
  `
  CREATE TABLE provisioning_keys (
    id          TEXT PRIMARY KEY,
    owner_id    TEXT NOT NULL,
    secret_hash BYTEA NOT NULL UNIQUE,
    hint        TEXT NOT NULL,
    scopes      TEXT NOT NULL,            -- JSON array of scope names
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT
  );

  CREATE TABLE api_keys (
    -- An identity is never reused, so cursors stay valid for ever.
    seq                        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                         TEXT NOT NULL UNIQUE,
    owner_id                   TEXT NOT NULL,
    name                       TEXT NOT NULL,
    state                      TEXT NOT NULL CHECK (state IN ('active', 'disabled', 'revoked')),
    version                    INTEGER NOT NULL CHECK (version >= 1),
    secret_hash                BYTEA NOT NULL UNIQUE,
    hint                       TEXT NOT NULL,
    spend_limit_micros         BIGINT,   -- NULL: no cap; what was spent is the sum of usage_counters
    store_request              INTEGER NOT NULL CHECK (store_request IN (0, 1)),
    store_response             INTEGER NOT NULL CHECK (store_response IN (0, 1)),
    retention_days             INTEGER NOT NULL,
    model_mode                 TEXT NOT NULL,
    model_ids                  TEXT NOT NULL,     -- JSON array
    created_at                 BIGINT NOT NULL,
    updated_at                 BIGINT NOT NULL,
    rotated_at                 BIGINT,
    revoked_at                 BIGINT,
    client_reference           TEXT,
    previous_secret_hash       BYTEA,
    previous_secret_expires_at BIGINT
  );
  CREATE INDEX api_keys_by_owner ON api_keys (owner_id, seq);
  CREATE UNIQUE INDEX api_keys_live_by_reference ON api_keys (owner_id, client_reference)
    WHERE client_reference IS NOT NULL AND state <> 'revoked';
  CREATE UNIQUE INDEX api_keys_by_previous_hash ON api_keys (previous_secret_hash)
    WHERE previous_secret_hash IS NOT NULL;

  -- Written on every model request: only the indexes the reads need.
  CREATE TABLE request_logs (
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            TEXT NOT NULL,
    owner_id      TEXT NOT NULL,
    key_id        TEXT NOT NULL REFERENCES api_keys (id),
    model         TEXT NOT NULL,
    status        INTEGER NOT NULL,
    cost_micros   BIGINT NOT NULL,
    created_at    BIGINT NOT NULL,
    request_input TEXT,
    response_text TEXT
  );
  CREATE INDEX request_logs_by_owner ON request_logs (owner_id, seq);
  CREATE INDEX request_logs_by_age ON request_logs (created_at);

  -- One row per key and model; a key's spend is the sum of its rows.
  CREATE TABLE usage_counters (
    key_id       TEXT NOT NULL REFERENCES api_keys (id),
    model        TEXT NOT NULL,
    owner_id     TEXT NOT NULL,
    total        BIGINT NOT NULL,
    succeeded    BIGINT NOT NULL,
    rejected     BIGINT NOT NULL,
    spent_micros BIGINT NOT NULL,
    PRIMARY KEY (key_id, model)
  );
  CREATE INDEX usage_counters_by_owner ON usage_counters (owner_id);

  -- Written in the transaction of its operation. The primary key decides concurrent claims: a
  -- second insert of the same key waits for the first transaction, then meets its record.
  CREATE TABLE idempotency_records (
    owner_id    TEXT NOT NULL,
    method      TEXT NOT NULL,
    operation   TEXT NOT NULL,            -- route pattern + canonical JSON of the decoded path parameters
    idem_key    TEXT NOT NULL,
    fingerprint BYTEA NOT NULL,           -- SHA-256 of the canonical request body
    status      INTEGER NOT NULL,
    sealed_body BYTEA NOT NULL,           -- AES-256-GCM; holds one-time secrets
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    PRIMARY KEY (owner_id, method, operation, idem_key)
  );
  CREATE INDEX idempotency_records_by_expiry ON idempotency_records (expires_at);

  -- Spend held by model requests in flight, in any process. A row counts while its lease runs
  -- (the database's clock, so processes' clocks never matter); the process holding it renews
  -- the lease while it lives, so a killed process's reservations stop counting one lease later.
  CREATE TABLE spend_reservations (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key_id     TEXT NOT NULL,
    micros     BIGINT NOT NULL CHECK (micros >= 0),
    holder     TEXT NOT NULL,             -- the store instance (process) that renews it
    expires_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX spend_reservations_by_key ON spend_reservations (key_id, expires_at);
  CREATE INDEX spend_reservations_by_holder ON spend_reservations (holder);

  -- Reserves p_micros of a key's limit, or returns NULL when committed spend + live reservations
  -- + p_micros would pass it. One call is one round trip and one transaction. The advisory lock
  -- serialises the reservations of one key across every process until commit; each statement
  -- after it reads a fresh snapshot (a VOLATILE function in READ COMMITTED), so it sees every
  -- reservation committed before the lock was granted. Committed spend and live reservations are
  -- read in one statement, so a settle (which commits a charge and deletes its reservation at
  -- once) is counted exactly once. The limit is the database's, not a cached copy's.
  CREATE FUNCTION gateway_reserve_spend(p_key_id TEXT, p_micros BIGINT, p_holder TEXT, p_lease_ms BIGINT)
  RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    spend_limit BIGINT;
    committed   BIGINT;
    held        BIGINT;
    reservation BIGINT;
  BEGIN
    PERFORM pg_advisory_xact_lock(${ADVISORY_LOCK_CLASS.spend}, hashtext(p_key_id));
    DELETE FROM spend_reservations WHERE key_id = p_key_id AND expires_at <= clock_timestamp();
    SELECT k.spend_limit_micros,
      (SELECT COALESCE(SUM(u.spent_micros), 0) FROM usage_counters u WHERE u.key_id = p_key_id)::BIGINT,
      (SELECT COALESCE(SUM(r.micros), 0) FROM spend_reservations r WHERE r.key_id = p_key_id)::BIGINT
      INTO spend_limit, committed, held
      FROM api_keys k WHERE k.id = p_key_id;
    IF spend_limit IS NOT NULL AND committed + held + p_micros > spend_limit THEN
      RETURN NULL;
    END IF;
    INSERT INTO spend_reservations (key_id, micros, holder, expires_at)
      VALUES (p_key_id, p_micros, p_holder, clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
      RETURNING id INTO reservation;
    RETURN reservation;
  END
  $$;

  -- Every change of a key tells every process, in the changing transaction: LISTENers hear it when
  -- it commits, and never hear of a change that rolled back.
  CREATE FUNCTION gateway_notify_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('gateway_key_changes', NEW.id);
    RETURN NULL;
  END
  $$;
  CREATE TRIGGER api_keys_notify_change AFTER UPDATE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION gateway_notify_key_change();
  `,
  // 2: running spend totals per key, so a reservation is one indexed row update instead of an
  // advisory lock and two sums over growing tables (usage_counters, spend_reservations).
  `
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

  -- Reserves p_micros of a key's limit, or returns NULL when committed spend + held reservations
  -- + p_micros would pass it. The check and the hold are one UPDATE of the key's account row: its
  -- row lock serialises the reservations and settles of one key across every process, and a
  -- waiting UPDATE re-checks its condition on the row as the one before it committed it (READ
  -- COMMITTED), so no two reservations both pass on the same headroom. The limit is the
  -- database's, not a cached copy's. Reservations whose lease ran out (a dead process's) still
  -- count in reserved_micros until swept: a refusal sweeps the key's and checks once more, so
  -- the sweep costs nothing while a key is within its limit (and leases still expire exactly).
  CREATE OR REPLACE FUNCTION gateway_reserve_spend(p_key_id TEXT, p_micros BIGINT, p_holder TEXT, p_lease_ms BIGINT)
  RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    reservation BIGINT;
    swept       BIGINT;
  BEGIN
    FOR attempt IN 1..2 LOOP
      UPDATE spend_accounts a SET reserved_micros = a.reserved_micros + p_micros
        FROM api_keys k
        WHERE a.key_id = p_key_id AND k.id = p_key_id
          AND (k.spend_limit_micros IS NULL OR a.spent_micros + a.reserved_micros + p_micros <= k.spend_limit_micros);
      IF FOUND THEN
        INSERT INTO spend_reservations (key_id, micros, holder, expires_at)
          VALUES (p_key_id, p_micros, p_holder, clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
          RETURNING id INTO reservation;
        RETURN reservation;
      END IF;
      EXIT WHEN attempt = 2;
      WITH gone AS (
        DELETE FROM spend_reservations WHERE key_id = p_key_id AND expires_at <= clock_timestamp() RETURNING micros
      )
      SELECT COALESCE(SUM(micros), 0) INTO swept FROM gone;
      -- Checked again even when nothing was swept here: a concurrent refusal may have swept the
      -- same rows first (this DELETE waited for its commit), and its headroom is now visible.
      IF swept > 0 THEN
        UPDATE spend_accounts SET reserved_micros = reserved_micros - swept WHERE key_id = p_key_id;
      END IF;
    END LOOP;
    RETURN NULL;
  END
  $$;
  `,
  // 3: many requests' settles and reservations in one call (one round trip, one commit).
  `
  -- Settles (parallel arrays s_*: a log row each, with its reservation to release or NULL), then
  -- reservations (r_key, r_micros), for requests in flight in one process, in one transaction.
  -- Returns one reservation id per r_key, NULL where it would pass the key's limit: each checked
  -- as gateway_reserve_spend does, in order, after the settles gave back what they held. Every
  -- account the call touches is locked first, in key order, and everything else that locks
  -- accounts (reservations, settles, sweeps) does so before touching the rows those accounts
  -- sum, so concurrent calls from many processes queue instead of deadlocking.
  CREATE FUNCTION gateway_spend_batch(
    s_reservation BIGINT[], s_id TEXT[], s_owner TEXT[], s_key TEXT[], s_model TEXT[], s_status INTEGER[],
    s_cost BIGINT[], s_created BIGINT[], s_input TEXT[], s_output TEXT[], s_succeeded INTEGER[], s_rejected INTEGER[],
    r_key TEXT[], r_micros BIGINT[], p_holder TEXT, p_lease_ms BIGINT)
  RETURNS BIGINT[] LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    reservations BIGINT[] := '{}';
    reservation  BIGINT;
    swept        BIGINT;
  BEGIN
    PERFORM 1 FROM spend_accounts WHERE key_id = ANY (s_key || r_key) ORDER BY key_id FOR UPDATE;

    IF cardinality(s_id) > 0 THEN
      INSERT INTO request_logs (id, owner_id, key_id, model, status, cost_micros, created_at, request_input, response_text)
        SELECT * FROM unnest(s_id, s_owner, s_key, s_model, s_status, s_cost, s_created, s_input, s_output);
      INSERT INTO usage_counters (key_id, model, owner_id, total, succeeded, rejected, spent_micros)
        SELECT key_id, model, MIN(owner_id), COUNT(*), SUM(succeeded), SUM(rejected), SUM(cost)::BIGINT
        FROM unnest(s_key, s_model, s_owner, s_succeeded, s_rejected, s_cost) AS t (key_id, model, owner_id, succeeded, rejected, cost)
        GROUP BY key_id, model ORDER BY key_id, model
        ON CONFLICT (key_id, model) DO UPDATE SET total = usage_counters.total + EXCLUDED.total,
          succeeded = usage_counters.succeeded + EXCLUDED.succeeded, rejected = usage_counters.rejected + EXCLUDED.rejected,
          spent_micros = usage_counters.spent_micros + EXCLUDED.spent_micros;
      -- An account gives back only what the DELETE found: a reservation swept meanwhile (its lease
      -- ran out) was given back by the sweep.
      WITH released AS (DELETE FROM spend_reservations WHERE id = ANY (s_reservation) RETURNING key_id, micros)
      UPDATE spend_accounts a SET spent_micros = a.spent_micros + c.cost,
        reserved_micros = a.reserved_micros - COALESCE((SELECT SUM(r.micros) FROM released r WHERE r.key_id = a.key_id), 0)
      FROM (SELECT key_id, SUM(cost)::BIGINT AS cost FROM unnest(s_key, s_cost) AS t (key_id, cost) GROUP BY key_id) c
      WHERE a.key_id = c.key_id;
    END IF;

    FOR i IN 1 .. COALESCE(cardinality(r_key), 0) LOOP
      reservation := NULL;
      FOR attempt IN 1..2 LOOP
        UPDATE spend_accounts a SET reserved_micros = a.reserved_micros + r_micros[i]
          FROM api_keys k
          WHERE a.key_id = r_key[i] AND k.id = r_key[i]
            AND (k.spend_limit_micros IS NULL OR a.spent_micros + a.reserved_micros + r_micros[i] <= k.spend_limit_micros);
        IF FOUND THEN
          INSERT INTO spend_reservations (key_id, micros, holder, expires_at)
            VALUES (r_key[i], r_micros[i], p_holder, clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
            RETURNING id INTO reservation;
          EXIT;
        END IF;
        EXIT WHEN attempt = 2;
        -- Refused: reservations whose lease ran out (a dead process's) stop counting, then check again.
        WITH gone AS (
          DELETE FROM spend_reservations WHERE key_id = r_key[i] AND expires_at <= clock_timestamp() RETURNING micros
        )
        SELECT COALESCE(SUM(micros), 0) INTO swept FROM gone;
        EXIT WHEN swept = 0;
        UPDATE spend_accounts SET reserved_micros = reserved_micros - swept WHERE key_id = r_key[i];
      END LOOP;
      reservations := array_append(reservations, reservation);
    END LOOP;
    RETURN reservations;
  END
  $$;

  -- Sweeps every reservation whose lease ran out, giving each account back what it held: the
  -- accounts first, in key order, as gateway_spend_batch locks them.
  CREATE FUNCTION gateway_sweep_spend_reservations() RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    -- One instant for both steps, so only reservations of locked accounts are swept.
    cutoff TIMESTAMPTZ := clock_timestamp();
    swept  BIGINT;
  BEGIN
    PERFORM 1 FROM spend_accounts
      WHERE key_id IN (SELECT key_id FROM spend_reservations WHERE expires_at <= cutoff)
      ORDER BY key_id FOR UPDATE;
    WITH gone AS (DELETE FROM spend_reservations WHERE expires_at <= cutoff RETURNING key_id, micros),
    per_key AS (SELECT key_id, SUM(micros)::BIGINT AS micros, COUNT(*) AS n FROM gone GROUP BY key_id),
    given_back AS (
      UPDATE spend_accounts a SET reserved_micros = a.reserved_micros - p.micros FROM per_key p WHERE a.key_id = p.key_id
    )
    SELECT COALESCE(SUM(n), 0)::BIGINT INTO swept FROM per_key;
    RETURN swept;
  END
  $$;
  `,
  // 4: holdings — a reservation a process keeps for its next requests of a key, so most of them
  // reserve in its memory and make one round trip (the settle) instead of two.
  `
  DROP FUNCTION gateway_spend_batch(BIGINT[], TEXT[], TEXT[], TEXT[], TEXT[], INTEGER[], BIGINT[], BIGINT[], TEXT[], TEXT[],
    INTEGER[], INTEGER[], TEXT[], BIGINT[], TEXT, BIGINT);

  -- As migration 3's gateway_spend_batch, with holdings. A holding is a spend_reservations row of
  -- one process for one key that many of its requests draw on. In order:
  --   settles: s_take NULL releases the request's own reservation row (deleted); a number takes
  --     that much out of the holding row s_reservation (the request had drawn it there);
  --   releases: holding rows h_id (of keys h_key) deleted, giving back what is left in them;
  --   reservations: r_holding NULL takes a reservation row of its own (as before); otherwise
  --     r_micros are added to a holding (a new one when r_holding is 0), and only while the key
  --     keeps r_floor micros free after it: holdings are granted far from a limit, never near it.
  -- Returns one id per reservation: the row taken or grown, NULL where refused.
  CREATE FUNCTION gateway_spend_batch(
    s_reservation BIGINT[], s_take BIGINT[], s_id TEXT[], s_owner TEXT[], s_key TEXT[], s_model TEXT[], s_status INTEGER[],
    s_cost BIGINT[], s_created BIGINT[], s_input TEXT[], s_output TEXT[], s_succeeded INTEGER[], s_rejected INTEGER[],
    h_id BIGINT[], h_key TEXT[],
    r_key TEXT[], r_micros BIGINT[], r_holding BIGINT[], r_floor BIGINT[], p_holder TEXT, p_lease_ms BIGINT)
  RETURNS BIGINT[] LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    reservations BIGINT[] := '{}';
    reservation  BIGINT;
    swept        BIGINT;
  BEGIN
    PERFORM 1 FROM spend_accounts WHERE key_id = ANY (s_key || r_key || h_key) ORDER BY key_id FOR UPDATE;

    IF cardinality(s_id) > 0 THEN
      INSERT INTO request_logs (id, owner_id, key_id, model, status, cost_micros, created_at, request_input, response_text)
        SELECT * FROM unnest(s_id, s_owner, s_key, s_model, s_status, s_cost, s_created, s_input, s_output);
      INSERT INTO usage_counters (key_id, model, owner_id, total, succeeded, rejected, spent_micros)
        SELECT key_id, model, MIN(owner_id), COUNT(*), SUM(succeeded), SUM(rejected), SUM(cost)::BIGINT
        FROM unnest(s_key, s_model, s_owner, s_succeeded, s_rejected, s_cost) AS t (key_id, model, owner_id, succeeded, rejected, cost)
        GROUP BY key_id, model ORDER BY key_id, model
        ON CONFLICT (key_id, model) DO UPDATE SET total = usage_counters.total + EXCLUDED.total,
          succeeded = usage_counters.succeeded + EXCLUDED.succeeded, rejected = usage_counters.rejected + EXCLUDED.rejected,
          spent_micros = usage_counters.spent_micros + EXCLUDED.spent_micros;
      -- An account gives back only what the rows still held: a row swept meanwhile (its lease ran
      -- out) was given back by the sweep. Takes from one holding are summed: a statement updates
      -- a row once.
      WITH released AS (
        DELETE FROM spend_reservations WHERE id IN (SELECT id FROM unnest(s_reservation, s_take) AS t (id, take) WHERE take IS NULL)
        RETURNING key_id, micros
      ),
      taken AS (
        UPDATE spend_reservations r SET micros = r.micros - t.take
        FROM (SELECT id, SUM(take)::BIGINT AS take FROM unnest(s_reservation, s_take) AS t (id, take) WHERE take IS NOT NULL GROUP BY id) t
        WHERE r.id = t.id
        RETURNING r.key_id, t.take AS micros
      ),
      freed AS (SELECT key_id, micros FROM released UNION ALL SELECT key_id, micros FROM taken)
      UPDATE spend_accounts a SET spent_micros = a.spent_micros + c.cost,
        reserved_micros = a.reserved_micros - COALESCE((SELECT SUM(f.micros) FROM freed f WHERE f.key_id = a.key_id), 0)
      FROM (SELECT key_id, SUM(cost)::BIGINT AS cost FROM unnest(s_key, s_cost) AS t (key_id, cost) GROUP BY key_id) c
      WHERE a.key_id = c.key_id;
    END IF;

    IF cardinality(h_id) > 0 THEN
      WITH gone AS (DELETE FROM spend_reservations WHERE id = ANY (h_id) RETURNING key_id, micros),
      per_key AS (SELECT key_id, SUM(micros)::BIGINT AS micros FROM gone GROUP BY key_id)
      UPDATE spend_accounts a SET reserved_micros = a.reserved_micros - p.micros FROM per_key p WHERE a.key_id = p.key_id;
    END IF;

    FOR i IN 1 .. COALESCE(cardinality(r_key), 0) LOOP
      reservation := NULL;
      FOR attempt IN 1..2 LOOP
        UPDATE spend_accounts a SET reserved_micros = a.reserved_micros + r_micros[i]
          FROM api_keys k
          WHERE a.key_id = r_key[i] AND k.id = r_key[i]
            AND (k.spend_limit_micros IS NULL
              OR a.spent_micros + a.reserved_micros + r_micros[i] + COALESCE(r_floor[i], 0) <= k.spend_limit_micros);
        IF FOUND THEN
          IF r_holding[i] IS NOT NULL AND r_holding[i] <> 0 THEN
            -- Only a live holding grows: one whose lease ran out may be swept by now, or soon.
            UPDATE spend_reservations SET micros = micros + r_micros[i],
                expires_at = clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond'
              WHERE id = r_holding[i] AND holder = p_holder AND expires_at > clock_timestamp()
              RETURNING id INTO reservation;
            IF reservation IS NULL THEN
              UPDATE spend_accounts SET reserved_micros = reserved_micros - r_micros[i] WHERE key_id = r_key[i];
            END IF;
          ELSE
            INSERT INTO spend_reservations (key_id, micros, holder, expires_at)
              VALUES (r_key[i], r_micros[i], p_holder, clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
              RETURNING id INTO reservation;
          END IF;
          EXIT;
        END IF;
        EXIT WHEN attempt = 2;
        -- Refused: reservations whose lease ran out (a dead process's) stop counting, then check again.
        WITH gone AS (
          DELETE FROM spend_reservations WHERE key_id = r_key[i] AND expires_at <= clock_timestamp() RETURNING micros
        )
        SELECT COALESCE(SUM(micros), 0) INTO swept FROM gone;
        EXIT WHEN swept = 0;
        UPDATE spend_accounts SET reserved_micros = reserved_micros - swept WHERE key_id = r_key[i];
      END LOOP;
      reservations := array_append(reservations, reservation);
    END LOOP;
    RETURN reservations;
  END
  $$;
  `,
  // 5: the tables every model request writes check no foreign key. Each row's check locked its
  // key's api_keys row (FOR KEY SHARE) — on a hot key, in every batch of every process, creating
  // a multixact when two processes' batches overlapped — and cost about a tenth of each batch's
  // database CPU (measured calling gateway_spend_batch with 4 and 8 settles). It guarded nothing: keys are never deleted (a revoked
  // key keeps its row), and a request is logged only for a key it authenticated with.
  // Also gone: gateway_reserve_spend, which nothing calls since gateway_spend_batch (migration 3).
  `
  ALTER TABLE request_logs DROP CONSTRAINT request_logs_key_id_fkey;
  ALTER TABLE usage_counters DROP CONSTRAINT usage_counters_key_id_fkey;
  DROP FUNCTION gateway_reserve_spend(TEXT, BIGINT, TEXT, BIGINT);
  `,
  // 6: key policies — a spend limit's reset period, an expiry, a rate limit policy, labels — and
  // spend per key and UTC day, so the spend of any calendar window is a sum of days. Spend from
  // before this schema has no day: it is kept on day 0 (the epoch), inside a lifetime window only.
  `
  ALTER TABLE api_keys
    ADD COLUMN reset_period TEXT NOT NULL DEFAULT 'never' CHECK (reset_period IN ('never', 'daily', 'weekly', 'monthly')),
    ADD COLUMN expires_at BIGINT,
    ADD COLUMN rate_limits TEXT,                 -- JSON rate limit policy, NULL: none
    ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';  -- JSON object

  CREATE TABLE spend_days (
    key_id       TEXT NOT NULL,
    day          BIGINT NOT NULL,                 -- 00:00 UTC of the day the requests began, ms
    owner_id     TEXT NOT NULL,
    requests     BIGINT NOT NULL,
    spent_micros BIGINT NOT NULL,
    PRIMARY KEY (key_id, day)
  );
  INSERT INTO spend_days (key_id, day, owner_id, requests, spent_micros)
    SELECT key_id, 0, MIN(owner_id), SUM(total), SUM(spent_micros) FROM usage_counters GROUP BY key_id;

  -- The account now also follows the key's current window: window_spent_micros is the spend of
  -- requests that began at or after window_start. A reservation whose window differs (the calendar
  -- passed a boundary, or the period changed) first reads the window's spend again from spend_days,
  -- under the account's row lock that settles take too, so the sum is exact.
  ALTER TABLE spend_accounts ADD COLUMN window_start BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN window_spent_micros BIGINT NOT NULL DEFAULT 0;
  UPDATE spend_accounts SET window_spent_micros = spent_micros;

  -- The start of the window of p_period that holds p_at (ms): as the contract's windowStartOf.
  CREATE FUNCTION gateway_window_start(p_period TEXT, p_at BIGINT) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE p_period
      WHEN 'daily' THEN (p_at / 86400000) * 86400000
      -- 1970-01-01 was a Thursday: Monday is three days before the epoch's weekday count.
      WHEN 'weekly' THEN (p_at / 86400000) * 86400000 - (((p_at / 86400000) + 3) % 7) * 86400000
      WHEN 'monthly' THEN (EXTRACT(EPOCH FROM date_trunc('month', to_timestamp(p_at / 1000.0) AT TIME ZONE 'UTC')) * 1000)::BIGINT
      ELSE 0
    END
  $$;

  -- Moves a locked account to the window of its key at p_at, when it is not there yet.
  CREATE FUNCTION gateway_roll_spend_window(p_key_id TEXT, p_at BIGINT) RETURNS VOID LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    current_start BIGINT;
  BEGIN
    SELECT gateway_window_start(k.reset_period, p_at) INTO current_start FROM api_keys k WHERE k.id = p_key_id;
    UPDATE spend_accounts a SET window_start = current_start,
        window_spent_micros = (SELECT COALESCE(SUM(d.spent_micros), 0) FROM spend_days d WHERE d.key_id = p_key_id AND d.day >= current_start)
      WHERE a.key_id = p_key_id AND a.window_start IS DISTINCT FROM current_start;
  END
  $$;

  DROP FUNCTION gateway_spend_batch(BIGINT[], BIGINT[], TEXT[], TEXT[], TEXT[], TEXT[], INTEGER[], BIGINT[], BIGINT[], TEXT[], TEXT[],
    INTEGER[], INTEGER[], BIGINT[], TEXT[], TEXT[], BIGINT[], BIGINT[], BIGINT[], TEXT, BIGINT);

  -- As migration 4's, with windows: settles also count their charge on their request's day and, when
  -- the request began in the account's window, in the window's spend; each reservation first rolls
  -- its key's account to the window that holds r_at (the request's time, the gateway's clock) and
  -- checks the window's spend instead of the lifetime's.
  CREATE FUNCTION gateway_spend_batch(
    s_reservation BIGINT[], s_take BIGINT[], s_id TEXT[], s_owner TEXT[], s_key TEXT[], s_model TEXT[], s_status INTEGER[],
    s_cost BIGINT[], s_created BIGINT[], s_input TEXT[], s_output TEXT[], s_succeeded INTEGER[], s_rejected INTEGER[],
    h_id BIGINT[], h_key TEXT[],
    r_key TEXT[], r_micros BIGINT[], r_holding BIGINT[], r_floor BIGINT[], r_at BIGINT[], p_holder TEXT, p_lease_ms BIGINT)
  RETURNS BIGINT[] LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    reservations BIGINT[] := '{}';
    reservation  BIGINT;
    swept        BIGINT;
  BEGIN
    PERFORM 1 FROM spend_accounts WHERE key_id = ANY (s_key || r_key || h_key) ORDER BY key_id FOR UPDATE;

    IF cardinality(s_id) > 0 THEN
      INSERT INTO request_logs (id, owner_id, key_id, model, status, cost_micros, created_at, request_input, response_text)
        SELECT * FROM unnest(s_id, s_owner, s_key, s_model, s_status, s_cost, s_created, s_input, s_output);
      INSERT INTO usage_counters (key_id, model, owner_id, total, succeeded, rejected, spent_micros)
        SELECT key_id, model, MIN(owner_id), COUNT(*), SUM(succeeded), SUM(rejected), SUM(cost)::BIGINT
        FROM unnest(s_key, s_model, s_owner, s_succeeded, s_rejected, s_cost) AS t (key_id, model, owner_id, succeeded, rejected, cost)
        GROUP BY key_id, model ORDER BY key_id, model
        ON CONFLICT (key_id, model) DO UPDATE SET total = usage_counters.total + EXCLUDED.total,
          succeeded = usage_counters.succeeded + EXCLUDED.succeeded, rejected = usage_counters.rejected + EXCLUDED.rejected,
          spent_micros = usage_counters.spent_micros + EXCLUDED.spent_micros;
      INSERT INTO spend_days (key_id, day, owner_id, requests, spent_micros)
        SELECT key_id, (created / 86400000) * 86400000, MIN(owner_id), COUNT(*), SUM(cost)::BIGINT
        FROM unnest(s_key, s_owner, s_created, s_cost) AS t (key_id, owner_id, created, cost)
        GROUP BY key_id, (created / 86400000) * 86400000 ORDER BY 1, 2
        ON CONFLICT (key_id, day) DO UPDATE SET requests = spend_days.requests + EXCLUDED.requests,
          spent_micros = spend_days.spent_micros + EXCLUDED.spent_micros;
      WITH released AS (
        DELETE FROM spend_reservations WHERE id IN (SELECT id FROM unnest(s_reservation, s_take) AS t (id, take) WHERE take IS NULL)
        RETURNING key_id, micros
      ),
      taken AS (
        UPDATE spend_reservations r SET micros = r.micros - t.take
        FROM (SELECT id, SUM(take)::BIGINT AS take FROM unnest(s_reservation, s_take) AS t (id, take) WHERE take IS NOT NULL GROUP BY id) t
        WHERE r.id = t.id
        RETURNING r.key_id, t.take AS micros
      ),
      freed AS (SELECT key_id, micros FROM released UNION ALL SELECT key_id, micros FROM taken)
      UPDATE spend_accounts a SET spent_micros = a.spent_micros + c.cost,
        window_spent_micros = a.window_spent_micros + (SELECT COALESCE(SUM(t.cost), 0)
          FROM unnest(s_key, s_cost, s_created) AS t (key_id, cost, created) WHERE t.key_id = a.key_id AND t.created >= a.window_start),
        reserved_micros = a.reserved_micros - COALESCE((SELECT SUM(f.micros) FROM freed f WHERE f.key_id = a.key_id), 0)
      FROM (SELECT key_id, SUM(cost)::BIGINT AS cost FROM unnest(s_key, s_cost) AS t (key_id, cost) GROUP BY key_id) c
      WHERE a.key_id = c.key_id;
    END IF;

    IF cardinality(h_id) > 0 THEN
      WITH gone AS (DELETE FROM spend_reservations WHERE id = ANY (h_id) RETURNING key_id, micros),
      per_key AS (SELECT key_id, SUM(micros)::BIGINT AS micros FROM gone GROUP BY key_id)
      UPDATE spend_accounts a SET reserved_micros = a.reserved_micros - p.micros FROM per_key p WHERE a.key_id = p.key_id;
    END IF;

    FOR i IN 1 .. COALESCE(cardinality(r_key), 0) LOOP
      reservation := NULL;
      PERFORM gateway_roll_spend_window(r_key[i], r_at[i]);
      FOR attempt IN 1..2 LOOP
        UPDATE spend_accounts a SET reserved_micros = a.reserved_micros + r_micros[i]
          FROM api_keys k
          WHERE a.key_id = r_key[i] AND k.id = r_key[i]
            AND (k.spend_limit_micros IS NULL
              OR a.window_spent_micros + a.reserved_micros + r_micros[i] + COALESCE(r_floor[i], 0) <= k.spend_limit_micros);
        IF FOUND THEN
          IF r_holding[i] IS NOT NULL AND r_holding[i] <> 0 THEN
            -- Only a live holding grows: one whose lease ran out may be swept by now, or soon.
            UPDATE spend_reservations SET micros = micros + r_micros[i],
                expires_at = clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond'
              WHERE id = r_holding[i] AND holder = p_holder AND expires_at > clock_timestamp()
              RETURNING id INTO reservation;
            IF reservation IS NULL THEN
              UPDATE spend_accounts SET reserved_micros = reserved_micros - r_micros[i] WHERE key_id = r_key[i];
            END IF;
          ELSE
            INSERT INTO spend_reservations (key_id, micros, holder, expires_at)
              VALUES (r_key[i], r_micros[i], p_holder, clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
              RETURNING id INTO reservation;
          END IF;
          EXIT;
        END IF;
        EXIT WHEN attempt = 2;
        -- Refused: reservations whose lease ran out (a dead process's) stop counting, then check again.
        WITH gone AS (
          DELETE FROM spend_reservations WHERE key_id = r_key[i] AND expires_at <= clock_timestamp() RETURNING micros
        )
        SELECT COALESCE(SUM(micros), 0) INTO swept FROM gone;
        EXIT WHEN swept = 0;
        UPDATE spend_accounts SET reserved_micros = reserved_micros - swept WHERE key_id = r_key[i];
      END LOOP;
      reservations := array_append(reservations, reservation);
    END LOOP;
    RETURN reservations;
  END
  $$;
  `,
  // 7: rate limits of keys, counted here so that every process together admits what a key's policy
  // allows. Per key: a requests and a tokens bucket, each a level (units in it) that drains at the
  // limit per minute from the instant it was written (the gateway's clock, as metering/rate-buckets.ts
  // computes it in memory); and a slot row per request in flight under a concurrency limit, leased
  // like a spend reservation and renewed by its process while the request lives.
  `
  CREATE TABLE rate_buckets (
    key_id         TEXT PRIMARY KEY,
    requests_level DOUBLE PRECISION NOT NULL DEFAULT 0,
    requests_at    BIGINT NOT NULL DEFAULT 0,
    tokens_level   DOUBLE PRECISION NOT NULL DEFAULT 0,
    tokens_at      BIGINT NOT NULL DEFAULT 0
  );
  CREATE TABLE request_slots (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key_id     TEXT NOT NULL,
    holder     TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX request_slots_by_key ON request_slots (key_id, expires_at);

  -- Admits one request of up to p_tokens tokens at p_at, or says which limit refuses it and for how
  -- long (ms; Infinity when the request alone needs more tokens than a minute's limit). A NULL limit
  -- is not set. The bucket row's lock serialises admissions of one key across every process, and
  -- the slots are counted under it.
  CREATE FUNCTION gateway_admit_rate(p_key TEXT, p_at BIGINT, p_rpm BIGINT, p_tpm BIGINT, p_concurrent INTEGER, p_tokens BIGINT,
    p_holder TEXT, p_lease_ms BIGINT)
  RETURNS TABLE (refused_by TEXT, retry_after_ms DOUBLE PRECISION, slot BIGINT, requests_level DOUBLE PRECISION, tokens_level DOUBLE PRECISION)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    b rate_buckets%ROWTYPE;
    in_flight BIGINT;
  BEGIN
    INSERT INTO rate_buckets (key_id) VALUES (p_key) ON CONFLICT (key_id) DO NOTHING;
    SELECT * INTO b FROM rate_buckets WHERE key_id = p_key FOR UPDATE;
    requests_level := CASE WHEN p_rpm IS NULL THEN 0
      ELSE GREATEST(0, b.requests_level - GREATEST(0, p_at - b.requests_at) * p_rpm / 60000.0) END;
    tokens_level := CASE WHEN p_tpm IS NULL THEN 0
      ELSE GREATEST(0, b.tokens_level - GREATEST(0, p_at - b.tokens_at) * p_tpm / 60000.0) END;
    refused_by := NULL;
    retry_after_ms := 0;
    slot := NULL;
    IF p_concurrent IS NOT NULL THEN
      SELECT COUNT(*) INTO in_flight FROM request_slots s WHERE s.key_id = p_key AND s.expires_at > clock_timestamp();
      IF in_flight >= p_concurrent THEN
        refused_by := 'concurrency';
        retry_after_ms := 1000;
      END IF;
    END IF;
    IF refused_by IS NULL AND p_rpm IS NOT NULL AND requests_level + 1 > p_rpm THEN
      refused_by := 'requests';
      retry_after_ms := (requests_level + 1 - p_rpm) * 60000.0 / p_rpm;
    END IF;
    IF refused_by IS NULL AND p_tpm IS NOT NULL AND tokens_level + p_tokens > p_tpm THEN
      refused_by := 'tokens';
      retry_after_ms := CASE WHEN p_tokens > p_tpm THEN 'Infinity'::DOUBLE PRECISION
        ELSE (tokens_level + p_tokens - p_tpm) * 60000.0 / p_tpm END;
    END IF;
    IF refused_by IS NULL THEN
      IF p_rpm IS NOT NULL THEN requests_level := requests_level + 1; END IF;
      IF p_tpm IS NOT NULL THEN tokens_level := tokens_level + p_tokens; END IF;
      -- A level is written as of the later of the two clocks: a process whose clock is behind never
      -- moves a bucket's instant back, which would let the next admission drain the same time twice.
      UPDATE rate_buckets SET requests_level = gateway_admit_rate.requests_level, requests_at = GREATEST(b.requests_at, p_at),
          tokens_level = gateway_admit_rate.tokens_level, tokens_at = GREATEST(b.tokens_at, p_at)
        WHERE key_id = p_key;
      IF p_concurrent IS NOT NULL THEN
        INSERT INTO request_slots (key_id, holder, expires_at)
          VALUES (p_key, p_holder, clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
          RETURNING id INTO slot;
      END IF;
    END IF;
    RETURN NEXT;
  END
  $$;

  -- Ends an admitted request: frees its slot, and gives back to the tokens bucket what it did not use.
  CREATE FUNCTION gateway_release_rate(p_key TEXT, p_slot BIGINT, p_unused BIGINT, p_tpm BIGINT, p_at BIGINT)
  RETURNS VOID LANGUAGE plpgsql VOLATILE AS $$
  BEGIN
    IF p_slot IS NOT NULL THEN
      DELETE FROM request_slots WHERE id = p_slot;
    END IF;
    IF p_unused > 0 AND p_tpm IS NOT NULL THEN
      UPDATE rate_buckets SET
          tokens_level = GREATEST(0, GREATEST(0, tokens_level - GREATEST(0, p_at - tokens_at) * p_tpm / 60000.0) - p_unused),
          tokens_at = GREATEST(tokens_at, p_at)
        WHERE key_id = p_key;
    END IF;
  END
  $$;
  `,
  // 8: when each key last had a model request (of any outcome): kept on its spend account by a
  // statement trigger on request_logs, whose inserts come only from gateway_spend_batch, which has
  // locked those keys' accounts already (so the update waits for no one).
  `
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
  `,
  // 9: webhooks and the audit trail. A key's alert settings (one JSON column); the audit events,
  // append-only (triggers refuse UPDATE and DELETE) and chained per owner, with each owner's head;
  // webhook endpoints (secrets sealed with the gateway's encryption key); the outbox — events and
  // one delivery row per event and endpoint, written with the change that made the event; and one
  // row per alert sent (key, kind, window or instant, threshold), whose primary key makes it once-only.
  `
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
  `,
  // 10: the request's fields that did not reach the model (hints, or fields a model drops), as a
  // JSON array of paths, null on the rows where everything was carried; gateway_spend_batch writes
  // them with the log rows (s_dropped), otherwise as migration 6's.
  `
  ALTER TABLE request_logs ADD COLUMN dropped_fields TEXT;

  DROP FUNCTION gateway_spend_batch(BIGINT[], BIGINT[], TEXT[], TEXT[], TEXT[], TEXT[], INTEGER[], BIGINT[], BIGINT[], TEXT[], TEXT[],
    INTEGER[], INTEGER[], BIGINT[], TEXT[], TEXT[], BIGINT[], BIGINT[], BIGINT[], BIGINT[], TEXT, BIGINT);

  CREATE FUNCTION gateway_spend_batch(
    s_reservation BIGINT[], s_take BIGINT[], s_id TEXT[], s_owner TEXT[], s_key TEXT[], s_model TEXT[], s_status INTEGER[],
    s_cost BIGINT[], s_created BIGINT[], s_input TEXT[], s_output TEXT[], s_dropped TEXT[], s_succeeded INTEGER[], s_rejected INTEGER[],
    h_id BIGINT[], h_key TEXT[],
    r_key TEXT[], r_micros BIGINT[], r_holding BIGINT[], r_floor BIGINT[], r_at BIGINT[], p_holder TEXT, p_lease_ms BIGINT)
  RETURNS BIGINT[] LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    reservations BIGINT[] := '{}';
    reservation  BIGINT;
    swept        BIGINT;
  BEGIN
    PERFORM 1 FROM spend_accounts WHERE key_id = ANY (s_key || r_key || h_key) ORDER BY key_id FOR UPDATE;

    IF cardinality(s_id) > 0 THEN
      INSERT INTO request_logs (id, owner_id, key_id, model, status, cost_micros, created_at, request_input, response_text, dropped_fields)
        SELECT * FROM unnest(s_id, s_owner, s_key, s_model, s_status, s_cost, s_created, s_input, s_output, s_dropped);
      INSERT INTO usage_counters (key_id, model, owner_id, total, succeeded, rejected, spent_micros)
        SELECT key_id, model, MIN(owner_id), COUNT(*), SUM(succeeded), SUM(rejected), SUM(cost)::BIGINT
        FROM unnest(s_key, s_model, s_owner, s_succeeded, s_rejected, s_cost) AS t (key_id, model, owner_id, succeeded, rejected, cost)
        GROUP BY key_id, model ORDER BY key_id, model
        ON CONFLICT (key_id, model) DO UPDATE SET total = usage_counters.total + EXCLUDED.total,
          succeeded = usage_counters.succeeded + EXCLUDED.succeeded, rejected = usage_counters.rejected + EXCLUDED.rejected,
          spent_micros = usage_counters.spent_micros + EXCLUDED.spent_micros;
      INSERT INTO spend_days (key_id, day, owner_id, requests, spent_micros)
        SELECT key_id, (created / 86400000) * 86400000, MIN(owner_id), COUNT(*), SUM(cost)::BIGINT
        FROM unnest(s_key, s_owner, s_created, s_cost) AS t (key_id, owner_id, created, cost)
        GROUP BY key_id, (created / 86400000) * 86400000 ORDER BY 1, 2
        ON CONFLICT (key_id, day) DO UPDATE SET requests = spend_days.requests + EXCLUDED.requests,
          spent_micros = spend_days.spent_micros + EXCLUDED.spent_micros;
      WITH released AS (
        DELETE FROM spend_reservations WHERE id IN (SELECT id FROM unnest(s_reservation, s_take) AS t (id, take) WHERE take IS NULL)
        RETURNING key_id, micros
      ),
      taken AS (
        UPDATE spend_reservations r SET micros = r.micros - t.take
        FROM (SELECT id, SUM(take)::BIGINT AS take FROM unnest(s_reservation, s_take) AS t (id, take) WHERE take IS NOT NULL GROUP BY id) t
        WHERE r.id = t.id
        RETURNING r.key_id, t.take AS micros
      ),
      freed AS (SELECT key_id, micros FROM released UNION ALL SELECT key_id, micros FROM taken)
      UPDATE spend_accounts a SET spent_micros = a.spent_micros + c.cost,
        window_spent_micros = a.window_spent_micros + (SELECT COALESCE(SUM(t.cost), 0)
          FROM unnest(s_key, s_cost, s_created) AS t (key_id, cost, created) WHERE t.key_id = a.key_id AND t.created >= a.window_start),
        reserved_micros = a.reserved_micros - COALESCE((SELECT SUM(f.micros) FROM freed f WHERE f.key_id = a.key_id), 0)
      FROM (SELECT key_id, SUM(cost)::BIGINT AS cost FROM unnest(s_key, s_cost) AS t (key_id, cost) GROUP BY key_id) c
      WHERE a.key_id = c.key_id;
    END IF;

    IF cardinality(h_id) > 0 THEN
      WITH gone AS (DELETE FROM spend_reservations WHERE id = ANY (h_id) RETURNING key_id, micros),
      per_key AS (SELECT key_id, SUM(micros)::BIGINT AS micros FROM gone GROUP BY key_id)
      UPDATE spend_accounts a SET reserved_micros = a.reserved_micros - p.micros FROM per_key p WHERE a.key_id = p.key_id;
    END IF;

    FOR i IN 1 .. COALESCE(cardinality(r_key), 0) LOOP
      reservation := NULL;
      PERFORM gateway_roll_spend_window(r_key[i], r_at[i]);
      FOR attempt IN 1..2 LOOP
        UPDATE spend_accounts a SET reserved_micros = a.reserved_micros + r_micros[i]
          FROM api_keys k
          WHERE a.key_id = r_key[i] AND k.id = r_key[i]
            AND (k.spend_limit_micros IS NULL
              OR a.window_spent_micros + a.reserved_micros + r_micros[i] + COALESCE(r_floor[i], 0) <= k.spend_limit_micros);
        IF FOUND THEN
          IF r_holding[i] IS NOT NULL AND r_holding[i] <> 0 THEN
            -- Only a live holding grows: one whose lease ran out may be swept by now, or soon.
            UPDATE spend_reservations SET micros = micros + r_micros[i],
                expires_at = clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond'
              WHERE id = r_holding[i] AND holder = p_holder AND expires_at > clock_timestamp()
              RETURNING id INTO reservation;
            IF reservation IS NULL THEN
              UPDATE spend_accounts SET reserved_micros = reserved_micros - r_micros[i] WHERE key_id = r_key[i];
            END IF;
          ELSE
            INSERT INTO spend_reservations (key_id, micros, holder, expires_at)
              VALUES (r_key[i], r_micros[i], p_holder, clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
              RETURNING id INTO reservation;
          END IF;
          EXIT;
        END IF;
        EXIT WHEN attempt = 2;
        -- Refused: reservations whose lease ran out (a dead process's) stop counting, then check again.
        WITH gone AS (
          DELETE FROM spend_reservations WHERE key_id = r_key[i] AND expires_at <= clock_timestamp() RETURNING micros
        )
        SELECT COALESCE(SUM(micros), 0) INTO swept FROM gone;
        EXIT WHEN swept = 0;
        UPDATE spend_accounts SET reserved_micros = reserved_micros - swept WHERE key_id = r_key[i];
      END LOOP;
      reservations := array_append(reservations, reservation);
    END LOOP;
    RETURN reservations;
  END
  $$;
  `,
  // 11: extension secret_use. The previous secret's terms as its rotation set them (JSON: hint,
  // retireWhenIdleSeconds, inUseWarningAt; NULL for a key rotated before this schema) and its
  // retirement, which leaves the key's version alone. Per key and secret, its use (flushed from each
  // process's memory every few seconds, never per request) and its most recent clients. A previous
  // secret whose grace already ended is recorded as retired then, so no event is sent for it now.
  `
  ALTER TABLE api_keys ADD COLUMN previous_secret TEXT;
  ALTER TABLE api_keys ADD COLUMN previous_secret_retired_at BIGINT;
  ALTER TABLE api_keys ADD COLUMN previous_secret_retired_reason TEXT;  -- idle | expired | revoked | rotated
  UPDATE api_keys SET previous_secret_retired_at = previous_secret_expires_at, previous_secret_retired_reason = 'expired'
    WHERE previous_secret_hash IS NOT NULL AND previous_secret_expires_at <= (extract(epoch FROM now()) * 1000)::BIGINT;
  -- What the previous-secret scan reads every few seconds: keys whose previous secret may still authenticate.
  CREATE INDEX api_keys_live_previous_secret ON api_keys (id)
    WHERE previous_secret_hash IS NOT NULL AND previous_secret_retired_at IS NULL AND previous_secret IS NOT NULL;
  CREATE TABLE secret_use (
    key_id       TEXT NOT NULL,
    secret_hash  BYTEA NOT NULL,
    counted_from BIGINT NOT NULL,  -- requests count those authenticated against the key as rotated at or after this (ms)
    last_used_at BIGINT,            -- NULL: not used since its figures started (a secret rotated away before any flush)
    requests     BIGINT NOT NULL,
    PRIMARY KEY (key_id, secret_hash)
  );
  CREATE TABLE secret_clients (
    key_id        TEXT NOT NULL,
    secret_hash   BYTEA NOT NULL,
    user_agent    TEXT NOT NULL,     -- '' when none was sent
    address       TEXT NOT NULL,     -- '' when unknown
    first_seen_at BIGINT NOT NULL,
    last_seen_at  BIGINT NOT NULL,
    requests      BIGINT NOT NULL,
    PRIMARY KEY (key_id, secret_hash, user_agent, address)
  );
  `,
];

/** The schema version this build expects. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The channel {@link MIGRATIONS}' trigger notifies, with the changed key's id as payload. */
export const KEY_CHANGES_CHANNEL = "gateway_key_changes";

/**
 * Brings the database to {@link SCHEMA_VERSION} (or `target`: tests build older schemas with it),
 * each migration in its own transaction, under a session advisory lock: of N processes starting
 * together one migrates, the others wait and then find nothing to do. Refuses a database written
 * by a newer build.
 */
export async function migrate(client: pg.ClientBase, target = SCHEMA_VERSION): Promise<void> {
  await client.query("SELECT pg_advisory_lock($1, $2)", [ADVISORY_LOCK_CLASS.migrations, 0]);
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER PRIMARY KEY,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const current = await schemaVersionOf(client);
    if (current > SCHEMA_VERSION) {
      throw new Error(`the database has schema version ${current}, newer than this gateway's ${SCHEMA_VERSION}; upgrade the gateway`);
    }
    for (let version = current; version < Math.min(target, SCHEMA_VERSION); version++) {
      await client.query("BEGIN");
      try {
        // No parameters, so the simple protocol runs the migration's many statements in one go.
        await client.query(MIGRATIONS[version]!);
        await client.query("INSERT INTO schema_migrations (version) VALUES ($1)", [version + 1]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1, $2)", [ADVISORY_LOCK_CLASS.migrations, 0]);
  }
}

/** The highest migration applied (0 for an empty database). */
export async function schemaVersionOf(client: pg.ClientBase | pg.Pool): Promise<number> {
  const result = await client.query<{ version: number }>("SELECT COALESCE(MAX(version), 0)::INTEGER AS version FROM schema_migrations");
  return result.rows[0]!.version;
}
