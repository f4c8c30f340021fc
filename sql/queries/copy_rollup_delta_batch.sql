-- Step 3 of a group commit: the rollup rows its new events add (TapwireCore.RollupDeltas),
-- appended as a row of arrays per app, an element per delta, in the same transaction (migration 0060).
COPY rollup_delta_batches (app_id, kind, grain, bucket, category, app_version, platform, campaign, variant,
    has_media, action, metric, bin, type, category_registered, n1, n2, n3, n4, n5, n6, n7, first_seen, last_seen, os, attribution_queued,
    holdouts_queued)
FROM STDIN (FORMAT binary)
