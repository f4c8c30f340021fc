-- Step 3 of a group commit, beside the rollup rows: the install ids and times of its new events,
-- a row of arrays per app, which the fold attributes (tapwire_attribute_pending, migration 0161).
COPY attribution_pending (app_id, device_ids, event_times, conversions)
FROM STDIN (FORMAT binary)
