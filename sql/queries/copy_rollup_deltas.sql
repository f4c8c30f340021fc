-- The fold's merged deltas, a row per key, into rollup_deltas (migration 0050), which
-- tapwire_fold_rollup_deltas() then upserts into the rollup tables in the same transaction.
COPY rollup_deltas (kind, app_id, grain, bucket, category, app_version, platform, campaign, variant,
    has_media, action, metric, bin, type, category_registered, n1, n2, n3, n4, n5, n6, n7, first_seen, last_seen)
FROM STDIN (FORMAT binary)
