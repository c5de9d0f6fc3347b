-- The route that answered a request (`provider/model`, docs/operators/routing.md), as the
-- x-gateway-route header named it; null when none did, and on rows written before the column.

ALTER TABLE request_logs ADD COLUMN route TEXT;
