-- The apps whose commits queued devices for the holdouts (migration 0201), in order.
SELECT DISTINCT app_id FROM holdout_pending ORDER BY app_id
