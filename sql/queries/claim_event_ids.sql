-- Step 2 of a group commit (after COPY into staging_events): claims each staged
-- (app_id, event_id) for good. The caller has already dropped repeats within the group and
-- staged the rows in key order, so concurrent collectors lock the dedup index in the same
-- order. An id already stored, by any collector at any time, is skipped; the affected row count
-- tells the caller whether any was (then sql/queries/staged_duplicates.sql says which).
INSERT INTO event_ids (app_id, event_id, received_at)
SELECT app_id, event_id, received_at
FROM staging_events
ON CONFLICT (app_id, event_id) DO NOTHING
