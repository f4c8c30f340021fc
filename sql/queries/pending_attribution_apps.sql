-- The apps whose commits queued events to attribute (migration 0161), in order.
SELECT DISTINCT app_id FROM attribution_pending ORDER BY app_id
