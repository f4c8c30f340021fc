-- Whether app $1 (every app when NULL) has any event: what a rebuild given both ends of its range
-- asks instead of rollups_event_range.sql, whose min and max read every event (2-3 s at 10M).
SELECT EXISTS (SELECT 1 FROM events WHERE ($1::bigint IS NULL OR app_id = $1::bigint))
