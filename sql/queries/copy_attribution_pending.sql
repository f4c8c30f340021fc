-- Step 3 of a group commit, beside the rollup rows: the install ids and times of its new events,
-- a row of arrays per app and attribution part, which the fold attributes
-- (tapwire_attribute_pending, migrations 0161 and 0328).
COPY attribution_pending (app_id, part, device_ids, event_times, conversions)
FROM STDIN (FORMAT binary)
