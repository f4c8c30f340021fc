-- The dismiss base of app $1 over the blocks of days ($3 grains, $4 first midnights) that cover the
-- range's whole UTC days, when the measurable pairs are every category of the report's list with
-- every version of $2 (PostgresReportReader.dismissPairs): per category, delivered and dismissals
-- summed over its rows of those versions. report_dismiss.sql gives the same sums for those
-- categories; this one leaves out its per-row test of the category and its min(app_version) (the
-- reader drops the categories outside its list and names the first version, measurable for each of
-- them), and the quarter-hour branch a range without cut days does not read
-- (report_dismiss_grid_quarters.sql reads it): about a third of the statement's time at a real app's
-- 40 versions (docs/reports.md, "What each report reads, and what it costs").
SELECT d.category, sum(d.delivered)::bigint AS delivered, sum(d.dismissals)::bigint AS dismissals
FROM unnest($3::smallint[], $4::timestamptz[]) AS b(grain, bucket)
JOIN rollup_dismiss_base d ON d.app_id = $1::bigint AND d.grain = b.grain AND d.bucket = b.bucket
WHERE d.app_version = ANY ($2::text[])
GROUP BY 1
