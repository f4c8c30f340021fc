-- Taken by a rebuild for its (one-day) transaction, before it folds the pending deltas: group
-- commits wait to append deltas (and folds to move them) until it commits, so none can land
-- between the delete and the recompute and be lost or counted twice. A report's reads (ACCESS
-- SHARE) are not blocked; its fold first waits for the day's transaction.
LOCK TABLE rollup_delta_batches, rollup_deltas, rollup_totals, rollup_total_actions, rollup_total_histograms, rollup_trend,
    rollup_dismiss_base, rollup_dismiss_blocks, rollup_dismiss_versions, rollup_dismiss_quarters, rollup_strata, rollup_uplift_days, rollup_conversion_base_days, rollup_marginals,
    rollup_release_counts, rollup_release_actions, mismatch_usage_hourly, mismatch_usage_daily IN EXCLUSIVE MODE
