-- The dismiss base of app $1 over the blocks of days ($3 grains, $4 first midnights) that cover the
-- range's whole UTC days, per category: delivered and dismissals summed over the block's rows of
-- the versions in $2 (rollup_dismiss_base), tested one by one. Read only when
-- report_dismiss_grid_days.sql says the app has rows of a version outside $2 (a version without a
-- manifest, say), so each block's sum over every version is not the grid's.
SELECT d.category, sum(d.delivered)::bigint AS delivered, sum(d.dismissals)::bigint AS dismissals
FROM unnest($3::smallint[], $4::timestamptz[]) AS b(grain, bucket)
JOIN rollup_dismiss_base d ON d.app_id = $1::bigint AND d.grain = b.grain AND d.bucket = b.bucket
WHERE d.app_version = ANY ($2::text[])
GROUP BY 1
