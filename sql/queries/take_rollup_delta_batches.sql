-- The fold's first step, for a few apps at a time: takes the pending batches of deltas of the apps
-- named in `tapwire.fold_apps` (migration 0060; the setting is made by
-- sql/queries/fold_apps.sql in the same transaction, since COPY takes no bind parameters) and
-- sends them to the collector, which sums the deltas per key (TapwireStore/RollupStore.swift) and
-- upserts them before it takes the next apps'. Every rollup key starts with the app, so no key is
-- upserted twice in a fold, and what the collector holds at once is a few apps' keys, not every
-- app's that wrote since the last fold. Rows another fold has locked are waited for, then
-- skipped, since that fold deleted them; rows committed after the statement began stay for the
-- next fold.
COPY (
    DELETE FROM rollup_delta_batches
    WHERE app_id = ANY (string_to_array(current_setting('tapwire.fold_apps'), ',')::bigint[])
    RETURNING app_id, kind, grain, bucket, category, app_version, platform, campaign, variant, has_media, action,
              metric, bin, type, category_registered, n1, n2, n3, n4, n5, n6, n7, first_seen, last_seen, os,
              attribution_queued
) TO STDOUT (FORMAT binary)
