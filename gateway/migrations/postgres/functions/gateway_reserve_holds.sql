-- gateway_reserve_holds: one request's reservation from every window of its key and of its key's
-- team, all or none, across every process (for a key of several windows or in a team; a key of
-- one window and no team reserves through gateway_spend_batch). Subjects are a key id and a team id;
-- each comes with its windows (p_starts: where each window's spend is counted from, the gateway's
-- computation of the calendar window that holds the request's time; p_limits: its limit).
--
-- A window's spend is the sum of its subject's days from its start (spend_days for a key,
-- team_spend_days for a team), and what is in flight is the sum of its subject's live holds: both
-- read in one statement, so a settle (which commits the charge and drops its holds together) is
-- seen whole or not at all. Reservations of one subject queue on its spend_subjects row, locked
-- in subject order. Returns the hold ids (one per subject) or, when a window cannot afford
-- p_micros, NULL ids and the index (1-based, over the flattened windows) of the first that cannot.
--
-- A key's requests in flight may also hold reservations of the other path (spend_reservations,
-- gateway_spend_batch's): made before the key joined a team with a spend policy, or took its
-- several windows. They count in the key's windows too, and its spend account is locked (after the
-- subjects, before anything else) so that neither path reserves past the other's back.
CREATE OR REPLACE FUNCTION gateway_reserve_holds(
  p_subjects TEXT[], p_is_team BOOLEAN[], p_window_counts INTEGER[], p_starts BIGINT[], p_limits BIGINT[],
  p_micros BIGINT, p_holder TEXT, p_lease_ms BIGINT, OUT holds BIGINT[], OUT refused_window INTEGER)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  w       INTEGER := 0;
  held    BIGINT;
  spent   BIGINT;
  hold_id BIGINT;
BEGIN
  holds := '{}';
  refused_window := NULL;
  INSERT INTO spend_subjects (subject) SELECT unnest(p_subjects) ORDER BY 1 ON CONFLICT DO NOTHING;
  PERFORM 1 FROM spend_subjects WHERE subject = ANY (p_subjects) ORDER BY subject FOR UPDATE;
  PERFORM 1 FROM spend_accounts WHERE key_id = ANY (p_subjects) ORDER BY key_id FOR UPDATE;
  -- Holds of a process that died (its lease ran out) stop counting.
  DELETE FROM spend_holds WHERE subject = ANY (p_subjects) AND expires_at <= clock_timestamp();
  FOR s IN 1 .. cardinality(p_subjects) LOOP
    FOR i IN 1 .. p_window_counts[s] LOOP
      w := w + 1;
      IF p_is_team[s] THEN
        SELECT (SELECT COALESCE(SUM(d.spent_micros), 0) FROM team_spend_days d WHERE d.team_id = p_subjects[s] AND d.day >= p_starts[w]),
               (SELECT COALESCE(SUM(h.micros), 0) FROM spend_holds h WHERE h.subject = p_subjects[s])
          INTO spent, held;
      ELSE
        SELECT (SELECT COALESCE(SUM(d.spent_micros), 0) FROM spend_days d WHERE d.key_id = p_subjects[s] AND d.day >= p_starts[w]),
               (SELECT COALESCE(SUM(h.micros), 0) FROM spend_holds h WHERE h.subject = p_subjects[s])
                 + (SELECT COALESCE(SUM(r.micros), 0) FROM spend_reservations r WHERE r.key_id = p_subjects[s] AND r.expires_at > clock_timestamp())
          INTO spent, held;
      END IF;
      IF spent + held + p_micros > p_limits[w] THEN
        refused_window := w;
        holds := NULL;
        RETURN;
      END IF;
    END LOOP;
  END LOOP;
  FOR s IN 1 .. cardinality(p_subjects) LOOP
    INSERT INTO spend_holds (subject, micros, holder, expires_at)
      VALUES (p_subjects[s], p_micros, p_holder, clock_timestamp() + p_lease_ms * INTERVAL '1 millisecond')
      RETURNING id INTO hold_id;
    holds := array_append(holds, hold_id);
  END LOOP;
END
$$;

-- What each window could still reserve: its limit less its spend and its subject's live holds (a
-- key's live spend_reservations too), a reading, not a hold, over the same flattened windows as
-- gateway_reserve_holds.
CREATE OR REPLACE FUNCTION gateway_hold_headroom(
  p_subjects TEXT[], p_is_team BOOLEAN[], p_window_counts INTEGER[], p_starts BIGINT[], p_limits BIGINT[])
RETURNS BIGINT[] LANGUAGE plpgsql STABLE AS $$
DECLARE
  w       INTEGER := 0;
  result  BIGINT[] := '{}';
  used    BIGINT;
BEGIN
  FOR s IN 1 .. cardinality(p_subjects) LOOP
    FOR i IN 1 .. p_window_counts[s] LOOP
      w := w + 1;
      SELECT CASE WHEN p_is_team[s]
          THEN (SELECT COALESCE(SUM(d.spent_micros), 0) FROM team_spend_days d WHERE d.team_id = p_subjects[s] AND d.day >= p_starts[w])
          ELSE (SELECT COALESCE(SUM(d.spent_micros), 0) FROM spend_days d WHERE d.key_id = p_subjects[s] AND d.day >= p_starts[w]) END
        + (SELECT COALESCE(SUM(h.micros), 0) FROM spend_holds h WHERE h.subject = p_subjects[s] AND h.expires_at > clock_timestamp())
        + CASE WHEN p_is_team[s] THEN 0
            ELSE (SELECT COALESCE(SUM(r.micros), 0) FROM spend_reservations r WHERE r.key_id = p_subjects[s] AND r.expires_at > clock_timestamp()) END
        INTO used;
      result := array_append(result, p_limits[w] - used);
    END LOOP;
  END LOOP;
  RETURN result;
END
$$;

-- Settles requests that reserved through gateway_reserve_holds: their log rows, counters and
-- charges (gateway_spend_batch's settles, with no reservation of its own) and the drop of their
-- holds, in one commit.
CREATE OR REPLACE FUNCTION gateway_settle_holds(
  s_logs JSON, s_succeeded INTEGER[], s_rejected INTEGER[], p_holds BIGINT[])
RETURNS VOID LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n INTEGER := json_array_length(s_logs);
  nothing BIGINT[] := array_fill(NULL::BIGINT, ARRAY[n]);
BEGIN
  PERFORM gateway_spend_batch(s_logs, nothing, nothing, s_succeeded, s_rejected, '{}'::BIGINT[], '{}'::TEXT[],
    '{}'::TEXT[], '{}'::BIGINT[], '{}'::BIGINT[], '{}'::BIGINT[], '{}'::BIGINT[], NULL, 0);
  DELETE FROM spend_holds WHERE id = ANY (p_holds);
END
$$;
