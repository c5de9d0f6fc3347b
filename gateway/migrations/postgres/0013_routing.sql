-- The route that answered a request (`provider/model`, docs/operators/routing.md), as the
-- x-gateway-route header named it; null when none did, and on rows written before the column.
-- gateway_spend_batch writes log rows from their JSON whole, so it needs no change.

ALTER TABLE request_logs ADD COLUMN route TEXT;

-- Cooldowns of routes that keep failing, shared by every process (dispatch/route-health.ts keeps
-- the same record in memory for one process). Per route: the failures counted in the window that
-- began at window_start; while cooling_until is set the route is skipped until then, after which
-- one probe (holding probe_until) is let through. Times are the gateway's clock, in ms.
CREATE TABLE route_health (
  route         TEXT PRIMARY KEY,
  failures      INTEGER NOT NULL DEFAULT 0,
  window_start  BIGINT NOT NULL DEFAULT 0,
  cooling_until BIGINT,
  probe_until   BIGINT NOT NULL DEFAULT 0
);

-- Counts one failure of a route; returns until when it cools, or NULL while it failed fewer than
-- p_failures times in its window. A failure of a route already cooling (its probe, or a request
-- sent before the cooldown was seen) cools it again from now. The row's lock serialises the
-- failures of one route across every process.
CREATE FUNCTION gateway_route_failed(p_route TEXT, p_at BIGINT, p_failures INTEGER, p_window_ms BIGINT, p_cooldown_ms BIGINT)
RETURNS BIGINT LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  h route_health%ROWTYPE;
BEGIN
  INSERT INTO route_health (route, window_start) VALUES (p_route, p_at) ON CONFLICT (route) DO NOTHING;
  SELECT * INTO h FROM route_health WHERE route = p_route FOR UPDATE;
  IF h.cooling_until IS NOT NULL THEN
    UPDATE route_health SET cooling_until = GREATEST(h.cooling_until, p_at + p_cooldown_ms), probe_until = 0 WHERE route = p_route;
    RETURN GREATEST(h.cooling_until, p_at + p_cooldown_ms);
  END IF;
  IF p_at - h.window_start > p_window_ms THEN
    h.failures := 0;
    h.window_start := p_at;
  END IF;
  h.failures := h.failures + 1;
  IF h.failures < p_failures THEN
    UPDATE route_health SET failures = h.failures, window_start = h.window_start WHERE route = p_route;
    RETURN NULL;
  END IF;
  UPDATE route_health SET failures = 0, window_start = p_at, cooling_until = p_at + p_cooldown_ms, probe_until = 0 WHERE route = p_route;
  RETURN p_at + p_cooldown_ms;
END
$$;
