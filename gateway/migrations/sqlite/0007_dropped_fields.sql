-- The request's fields that did not reach the model (hints, or fields a model drops), as a
-- JSON array of paths; null on the rows where everything was carried.

ALTER TABLE request_logs ADD COLUMN dropped_fields TEXT;
