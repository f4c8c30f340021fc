-- The dismiss base of app $1 over the blocks of days ($3 grains, $4 first midnights) that cover the
-- range's whole UTC days, when the measurable pairs are every category of the report's list with
-- every version of $2 (PostgresReportReader.dismissPairs): per category, delivered and dismissals
-- summed over its rows of those versions, as report_dismiss.sql gives them for those categories.
-- When every version the app has sent is in $2 (rollup_dismiss_versions names each version with
-- rows in rollup_dismiss_base: a real app's manifests), that is each block's sum over every version
-- (rollup_dismiss_blocks, migration 0301: one row per block and category, present exactly when the
-- block has rows of the category), with no per-version work; otherwise each block's rows of the
-- versions in $2 (rollup_dismiss_base), tested one by one. Each branch runs only when its test
-- holds (a one-time filter). The reader drops the categories outside its list and names the first
-- version, measurable for each of them; the quarter-hour branch a range without cut days does not
-- read (report_dismiss_grid_quarters.sql reads it). docs/reports.md, "Issue 33's ratio: the
-- dismiss base".
SELECT category, sum(delivered)::bigint AS delivered, sum(dismissals)::bigint AS dismissals
FROM (SELECT d.category, d.delivered, d.dismissals
      FROM unnest($3::smallint[], $4::timestamptz[]) AS b(grain, bucket)
      JOIN rollup_dismiss_blocks d ON d.app_id = $1::bigint AND d.grain = b.grain AND d.bucket = b.bucket
      WHERE NOT EXISTS (SELECT 1 FROM rollup_dismiss_versions v WHERE v.app_id = $1::bigint AND NOT (v.app_version = ANY ($2::text[])))
      UNION ALL
      SELECT d.category, d.delivered, d.dismissals
      FROM unnest($3::smallint[], $4::timestamptz[]) AS b(grain, bucket)
      JOIN rollup_dismiss_base d ON d.app_id = $1::bigint AND d.grain = b.grain AND d.bucket = b.bucket
      WHERE d.app_version = ANY ($2::text[])
        AND EXISTS (SELECT 1 FROM rollup_dismiss_versions v WHERE v.app_id = $1::bigint AND NOT (v.app_version = ANY ($2::text[])))) s
GROUP BY 1
