-- Step 3 of a group commit, beside the rollup rows: the install ids and times of its new
-- assignments and conversions, a row of arrays per app, whose devices' holdout rows the fold
-- recomputes (tapwire_holdouts_pending, migration 0201).
COPY holdout_pending (app_id, device_ids, event_times)
FROM STDIN (FORMAT binary)
