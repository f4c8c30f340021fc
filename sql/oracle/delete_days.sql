-- Removes every rollup of [$2, $3) (whole UTC days) for app $1, or every app when $1 is NULL,
-- before the tests' oracle recomputes them from the day's events with sql/fresh/ (RollupOracle;
-- `tapwire rollups rebuild` replaces the day's rows in place instead, sql/queries/
-- rollups_rebuild_replace.sql, so this is the oracle's alone and not in the `tapwire` binary),
-- and bumps the rebuild generation of the app (0: every app), so readers stop serving the stored
-- release-regression looks taken before (migration 0115). A day's strata go with their sums:
-- the fold adds each stratum's terms back from zero. For conversion (migration 0180) the base of
-- the day goes too, and each stratum's fall to zero is queued for the names converted in it, as
-- the recompute queues its rise back. rollup_dismiss_versions keeps its versions (it may name more
-- than the rows do, never fewer: migration 0301). The blocks of days that hold the day (grains
-- 3 to 6, migration 0150) are made again from their days' rows once the day is recomputed
-- (rollups_rebuild_blocks.sql).
WITH rebuilt AS (
    INSERT INTO rebuild_generations (app_id, generation) VALUES (coalesce($1::bigint, 0), 1)
    ON CONFLICT (app_id) DO UPDATE SET generation = rebuild_generations.generation + 1
), totals AS (
    DELETE FROM rollup_totals
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND grain IN (0, 2) AND bucket >= $2::timestamptz AND bucket < $3::timestamptz
), total_actions AS (
    DELETE FROM rollup_total_actions
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND grain IN (0, 2) AND bucket >= $2::timestamptz AND bucket < $3::timestamptz
), total_histograms AS (
    DELETE FROM rollup_total_histograms
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND grain IN (0, 2) AND bucket >= $2::timestamptz AND bucket < $3::timestamptz
), dismiss_days AS (
    DELETE FROM rollup_dismiss_base
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND grain = 2 AND bucket >= $2::timestamptz AND bucket < $3::timestamptz
), dismiss_block_days AS (
    DELETE FROM rollup_dismiss_blocks
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND grain = 2 AND bucket >= $2::timestamptz AND bucket < $3::timestamptz
), dismiss_quarters AS (
    DELETE FROM rollup_dismiss_quarters
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND day >= $2::timestamptz AND day < $3::timestamptz
), trend AS (
    DELETE FROM rollup_trend
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND day >= $2::timestamptz AND day < $3::timestamptz
), strata AS (
    DELETE FROM rollup_strata
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND day >= $2::timestamptz AND day < $3::timestamptz
    RETURNING app_id, day, category, campaign, platform, rich_delivered, text_delivered
), uplift AS (
    DELETE FROM rollup_uplift_days
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND day >= $2::timestamptz AND day < $3::timestamptz
), conversion_base AS (
    DELETE FROM rollup_conversion_base_days
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND day >= $2::timestamptz AND day < $3::timestamptz
), conversion_delivered AS (
    INSERT INTO conversion_strata_pending (app_id, day, category, campaign, platform, rich_before, text_before, rich_after, text_after)
    SELECT app_id, day, category, campaign, platform, rich_delivered, text_delivered, 0, 0
    FROM strata
    WHERE rich_delivered <> 0 OR text_delivered <> 0
), marginals AS (
    DELETE FROM rollup_marginals
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND day >= $2::timestamptz AND day < $3::timestamptz
), release_counts AS (
    DELETE FROM rollup_release_counts
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND day >= $2::timestamptz AND day < $3::timestamptz
), release_actions AS (
    DELETE FROM rollup_release_actions
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND day >= $2::timestamptz AND day < $3::timestamptz
), usage_hourly AS (
    DELETE FROM mismatch_usage_hourly
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND bucket >= $2::timestamptz AND bucket < $3::timestamptz
)
DELETE FROM mismatch_usage_daily
WHERE ($1::bigint IS NULL OR app_id = $1::bigint)
  AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND day < ($3::timestamptz AT TIME ZONE 'UTC')::date
