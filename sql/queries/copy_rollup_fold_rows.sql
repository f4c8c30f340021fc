-- The fold's rows, a row per key of every rollup table, into rollup_fold_rows (migration 0320:
-- unlogged, the columns of rollup_deltas), which tapwire_fold_rollups() then upserts into the
-- rollup tables in the same transaction.
COPY rollup_fold_rows (kind, app_id, grain, bucket, category, app_version, platform, campaign, variant,
    has_media, action, metric, bin, type, category_registered, n1, n2, n3, n4, n5, n6, n7, first_seen, last_seen, dimension, value,
    first_slot, a1, a2, a3, a4, bins)
FROM STDIN (FORMAT binary)
