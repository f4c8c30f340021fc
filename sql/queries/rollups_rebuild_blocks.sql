-- After a rebuilt day [$2, $3) of app $1 (every app when NULL) is recomputed, in the same
-- transaction, step 1 of 2: the blocks of days that hold it (grains 3 to 6, migration 0150) go, to
-- be made again from the rows of their days (rollups_rebuild_blocks_sum.sql): whatever they held
-- before, a rebuild leaves every block the sum of its days.
WITH totals AS (
    DELETE FROM rollup_totals t
    USING generate_series(3, 6) AS g(grain)
    WHERE ($1::bigint IS NULL OR t.app_id = $1::bigint) AND t.grain = g.grain AND t.bucket = tapwire_day_block($2::timestamptz, g.grain)
), actions AS (
    DELETE FROM rollup_total_actions t
    USING generate_series(3, 6) AS g(grain)
    WHERE ($1::bigint IS NULL OR t.app_id = $1::bigint) AND t.grain = g.grain AND t.bucket = tapwire_day_block($2::timestamptz, g.grain)
), histograms AS (
    DELETE FROM rollup_total_histograms t
    USING generate_series(3, 6) AS g(grain)
    WHERE ($1::bigint IS NULL OR t.app_id = $1::bigint) AND t.grain = g.grain AND t.bucket = tapwire_day_block($2::timestamptz, g.grain)
)
DELETE FROM rollup_dismiss_base t
USING generate_series(3, 6) AS g(grain)
WHERE ($1::bigint IS NULL OR t.app_id = $1::bigint) AND t.grain = g.grain AND t.bucket = tapwire_day_block($2::timestamptz, g.grain)
  AND $3::timestamptz IS NOT NULL
