-- Step 2 of a group commit (after COPY into staging_events): claims each (app_id, event_id) for
-- good. An id already stored, by any collector at any time, is not returned; nor is a repeat
-- within the group. The caller keeps the first staged copy of each returned id, deletes the
-- rest from staging_events, and COPYs the kept rows into events.
-- Rows are taken in key order so concurrent collectors lock the dedup index in the same order.
INSERT INTO event_ids (app_id, event_id, received_at)
SELECT DISTINCT ON (app_id, event_id) app_id, event_id, received_at
FROM staging_events
ORDER BY app_id, event_id, seq
ON CONFLICT (app_id, event_id) DO NOTHING
RETURNING app_id, event_id
