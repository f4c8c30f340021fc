-- The histogram rows of app $1 by category and metric, over the blocks of days ($2 grains, $3
-- first midnights) and the quarter hours $4 of the days the range's edges cut (as
-- report_totals.sql): each row's bins and counts as stored. The reader adds them up bin by bin
-- (BinnedHistogram): a 30-day report reads a few rows per category and metric, where unnesting
-- and summing their bins here took most of a report's database time (docs/reports.md).
SELECT t.category, t.metric, t.bins, t.counts
FROM unnest($2::smallint[], $3::timestamptz[]) AS b(grain, bucket)
JOIN rollup_total_histograms t ON t.app_id = $1::bigint AND t.grain = b.grain AND t.bucket = b.bucket
UNION ALL
SELECT category, metric, bins, counts
FROM rollup_total_histograms
WHERE app_id = $1::bigint AND grain = 0 AND bucket = ANY ($4::timestamptz[])
