-- Benchmarks clean up their scratch app's events.
DELETE FROM events WHERE app_id = $1::bigint
