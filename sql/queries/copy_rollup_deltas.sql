-- Step 3 of a group commit: the rollup rows its new events add (TapwireCore.RollupDeltas),
-- appended to the pending deltas in the same transaction (migration 0050).
COPY rollup_deltas (kind, app_id, grain, bucket, category, app_version, platform, campaign, variant,
    has_media, action, metric, bin, type, category_registered, n1, n2, n3, n4, n5, n6, n7, first_seen, last_seen)
FROM STDIN (FORMAT binary)
