-- Step 2 of a group commit (after sql/queries/copy_staged_ids.sql): claims each staged
-- (app_id, event_id) for good. The caller staged them in key order with repeats within the
-- group dropped, so concurrent collectors lock the dedup index in the same order. An id already
-- stored, by any collector at any time, is skipped; the affected row count tells the caller
-- whether any was (then sql/queries/staged_duplicates.sql says which).
INSERT INTO event_ids (app_id, event_id, received_at)
SELECT app_id, event_id, received_at
FROM staged_ids
ON CONFLICT (app_id, event_id) DO NOTHING
