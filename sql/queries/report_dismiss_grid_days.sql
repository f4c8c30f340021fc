-- The dismiss base of app $1 over the blocks of days ($3 grains, $4 first midnights) that cover the
-- range's whole UTC days, when the measurable pairs are every category of the report's list with
-- every version of $2 (PostgresReportReader.dismissPairs): per category, delivered and dismissals
-- summed over every version of each block (rollup_dismiss_blocks, migration 0301: one row per
-- block and category, present exactly when the block has rows of the category in
-- rollup_dismiss_base), and `outside`: whether rollup_dismiss_versions names a version outside $2
-- (it names each version with rows in rollup_dismiss_base). When it does not (a real app's
-- manifests cover every version it has sent), these sums are the grid's; when it does, the reader
-- discards them and reads report_dismiss_grid_versions.sql (each block's rows of the versions in
-- $2) instead. No row means no block has a row, so no version has one either: nothing to read. One
-- join and an init plan, so planning it costs about what executing it does; the statement that
-- held both reads as branches of a UNION ALL planned both every time (docs/reports.md, "Issue 33's
-- ratio: the dismiss statement's planning"). The reader drops the categories outside its list and
-- names the first version, measurable for each of them; the quarter-hour branch a range without
-- cut days does not read (report_dismiss_grid_quarters.sql reads it).
SELECT d.category, sum(d.delivered)::bigint AS delivered, sum(d.dismissals)::bigint AS dismissals,
    (SELECT EXISTS (SELECT 1 FROM rollup_dismiss_versions v
                    WHERE v.app_id = $1::bigint AND NOT (v.app_version = ANY ($2::text[])))) AS outside
FROM unnest($3::smallint[], $4::timestamptz[]) AS b(grain, bucket)
JOIN rollup_dismiss_blocks d ON d.app_id = $1::bigint AND d.grain = b.grain AND d.bucket = b.bucket
GROUP BY 1
