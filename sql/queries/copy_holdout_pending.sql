-- Step 3 of a group commit, beside the rollup rows: the install ids and times of its new
-- assignments and conversions, a row of arrays per app, whose devices' holdout rows the fold
-- recomputes (tapwire_holdouts_pending, migration 0201), and which of them are assignments (a
-- device with conversions alone and no stored row is not read, migration 0323).
COPY holdout_pending (app_id, device_ids, event_times, assignments)
FROM STDIN (FORMAT binary)
