-- The fold's first step: takes every pending batch of deltas (migration 0060) and sends it to the
-- collector, which sums the deltas per key (TapwireStore/RollupStore.swift). A concurrent fold
-- takes other rows; rows committed meanwhile stay for the next fold.
COPY (
    DELETE FROM rollup_delta_batches
    RETURNING app_id, kind, grain, bucket, category, app_version, platform, campaign, variant, has_media, action,
              metric, bin, type, category_registered, n1, n2, n3, n4, n5, n6, n7, first_seen, last_seen
) TO STDOUT (FORMAT binary)
