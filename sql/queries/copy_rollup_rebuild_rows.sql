-- A rebuilt day's rows, in the column order of copy_rollup_fold_rows.sql, into the session's staging
-- table (rollups_rebuild_stage.sql, migration 0313), which tapwire_replace_rollups then reads in
-- the same transaction (rollups_rebuild_replace.sql).
COPY tapwire_rebuild_rows (kind, app_id, grain, bucket, category, app_version, platform, campaign, variant,
    has_media, action, metric, bin, type, category_registered, n1, n2, n3, n4, n5, n6, n7, first_seen, last_seen, dimension, value,
    first_slot, a1, a2, a3, a4, bins)
FROM STDIN (FORMAT binary)
