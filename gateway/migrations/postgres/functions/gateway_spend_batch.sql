-- gateway_spend_batch: many requests' settles, releases and reservations in one call (one round
-- trip, one commit). The one definition of the function: the migration runner
-- (store/postgres/migrations.ts) runs this file after migrating, so a change of its body is a change
-- here alone; a change of its parameters also needs a migration that drops the old signature.
--
-- Settles (s_logs: a request_logs row each, as JSON; the parallel arrays s_*: its reservation to
-- release or NULL, and its outcome), then
-- reservations (r_key, r_micros), for requests in flight in one process, in one transaction.
-- Returns one reservation id per r_key, NULL where it would pass the key's limit: each checked
-- as one reservation alone would be, in order, after the settles gave back what they held. Every
-- account the call touches is locked first, in key order, and everything else that locks
-- accounts (reservations, settles, sweeps) does so before touching the rows those accounts
-- sum, so concurrent calls from many processes queue instead of deadlocking.
--
-- Holdings. A holding is a spend_reservations row of
-- one process for one key that many of its requests draw on. In order:
--   settles: s_take NULL releases the request's own reservation row (deleted); a number takes
--     that much out of the holding row s_reservation (the request had drawn it there);
--   releases: holding rows h_id (of keys h_key) deleted, giving back what is left in them;
--   reservations: r_holding NULL takes a reservation row of its own (as before); otherwise
--     r_micros are added to a holding (a new one when r_holding is 0), and only while the key
--     keeps r_floor micros free after it: holdings are granted far from a limit, never near it.
-- Returns one id per reservation: the row taken or grown, NULL where refused.
--
-- Windows: settles also count their charge on their request's day and, when
-- the request began in the account's window, in the window's spend; each reservation first rolls
-- its key's account to the window that holds r_at (the request's time, the gateway's clock) and
-- checks the window's spend instead of the lifetime's. A key's live spend_holds (the other path's,
-- gateway_reserve_holds': requests that began while the key was in a team with a spend policy,
-- or had several windows) count against its limit too; that path locks the key's account too.
CREATE OR REPLACE FUNCTION gateway_spend_batch(
  s_logs JSON, s_reservation BIGINT[], s_take BIGINT[], s_succeeded INTEGER[], s_rejected INTEGER[],
  h_id BIGINT[], h_key TEXT[],
  r_key TEXT[], r_micros BIGINT[], r_holding BIGINT[], r_floor BIGINT[], r_at BIGINT[], p_holder TEXT, p_lease_ms BIGINT)
RETURNS BIGINT[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  reservations BIGINT[] := '{}';
  reservation  BIGINT;
  swept        BIGINT;
  -- The settles' log rows, read from s_logs once; then field by field, for the counters and charges.
  logs         request_logs[] := ARRAY(SELECT json_populate_recordset(NULL::request_logs, s_logs));
  s_owner      TEXT[] := '{}';
  s_key        TEXT[] := '{}';
  s_model      TEXT[] := '{}';
  s_cost       BIGINT[] := '{}';
  s_created    BIGINT[] := '{}';
BEGIN
  IF cardinality(logs) > 0 THEN
    SELECT array_agg(l.owner_id ORDER BY l.ordinality), array_agg(l.key_id ORDER BY l.ordinality), array_agg(l.model ORDER BY l.ordinality),
        array_agg(l.cost_micros ORDER BY l.ordinality), array_agg(l.created_at ORDER BY l.ordinality)
      INTO s_owner, s_key, s_model, s_cost, s_created
      FROM unnest(logs) WITH ORDINALITY AS l;
  END IF;

  PERFORM 1 FROM spend_accounts WHERE key_id = ANY (s_key || r_key || h_key) ORDER BY key_id FOR UPDATE;

  IF cardinality(s_key) > 0 THEN
    -- A log row as its codec wrote it (store/tables.ts: one JSON object per row, by column name):
    -- every column the object names, in the table's own types; the sequence numbers its seq.
    INSERT INTO request_logs OVERRIDING USER VALUE SELECT * FROM unnest(logs);
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
    -- A request of a key in a team is charged to that team too (the team its log row names: the
    -- key's when the request reserved), on the request's day; the team's days count charged requests.
    INSERT INTO team_spend_days (team_id, day, owner_id, requests, spent_micros)
      SELECT l.team_id, (l.created_at / 86400000) * 86400000, MIN(l.owner_id), COUNT(*), SUM(l.cost_micros)::BIGINT
      FROM unnest(logs) AS l WHERE l.team_id IS NOT NULL AND l.cost_micros > 0
      GROUP BY l.team_id, (l.created_at / 86400000) * 86400000 ORDER BY 1, 2
      ON CONFLICT (team_id, day) DO UPDATE SET requests = team_spend_days.requests + EXCLUDED.requests,
        spent_micros = team_spend_days.spent_micros + EXCLUDED.spent_micros;
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
            OR a.window_spent_micros + a.reserved_micros + r_micros[i] + COALESCE(r_floor[i], 0)
              + (SELECT COALESCE(SUM(h.micros), 0) FROM spend_holds h WHERE h.subject = r_key[i] AND h.expires_at > clock_timestamp())
              <= k.spend_limit_micros);
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
