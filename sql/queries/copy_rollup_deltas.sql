-- The fold's rows, a row per key of every rollup table, into rollup_deltas (migrations 0050, 0150),
-- which tapwire_fold_rollups() then upserts into the rollup tables in the same transaction.
COPY rollup_deltas (kind, app_id, grain, bucket, category, app_version, platform, campaign, variant,
    has_media, action, metric, bin, type, category_registered, n1, n2, n3, n4, n5, n6, n7, first_seen, last_seen, dimension, value,
    first_slot, a1, a2, a3, a4, bins)
FROM STDIN (FORMAT binary)
