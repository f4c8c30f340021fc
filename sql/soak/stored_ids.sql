-- Every stored event id of the soak's app (one row per stored row, so duplicates would show).
SELECT event_id::text FROM events WHERE app_id = $1::bigint
