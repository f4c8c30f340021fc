-- Removes the rollups of [$2, $3) (whole UTC days) for app $1, or every app when $1 is NULL,
-- before rollups_rebuild_insert.sql recomputes them.
WITH counts AS (
    DELETE FROM rollup_counts
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND hour >= $2::timestamptz AND hour < $3::timestamptz
), actions AS (
    DELETE FROM rollup_actions
    WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND hour >= $2::timestamptz AND hour < $3::timestamptz
)
DELETE FROM rollup_histograms
WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND hour >= $2::timestamptz AND hour < $3::timestamptz
