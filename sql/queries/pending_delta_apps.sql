-- The fold's plan: the apps with pending batches of deltas (migration 0060), in order. A small
-- queue table, emptied by every fold, so a scan of it is cheap.
SELECT DISTINCT app_id FROM rollup_delta_batches ORDER BY app_id
