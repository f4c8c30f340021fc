-- Taken by a rebuild for its (one-day) transaction: group commits wait to add to the rollups
-- until it commits, so none can land between the delete and the recompute and be lost or
-- counted twice. Reports (ACCESS SHARE) are not blocked.
LOCK TABLE rollup_deltas, rollup_counts, rollup_actions, rollup_histograms, mismatch_usage_hourly, mismatch_usage_daily IN EXCLUSIVE MODE
