-- The histogram bins of app $1 by category and metric, over the blocks of days ($2 grains, $3
-- first midnights) and the quarter hours $4 of the days the range's edges cut (as
-- report_totals.sql), summed per bin.
SELECT r.category, r.metric, u.bin, sum(u.n)::bigint AS count
FROM (SELECT t.category, t.metric, t.bins, t.counts
      FROM unnest($2::smallint[], $3::timestamptz[]) AS b(grain, bucket)
      JOIN rollup_total_histograms t ON t.app_id = $1::bigint AND t.grain = b.grain AND t.bucket = b.bucket
      UNION ALL
      SELECT category, metric, bins, counts
      FROM rollup_total_histograms
      WHERE app_id = $1::bigint AND grain = 0 AND bucket = ANY ($4::timestamptz[])) r
CROSS JOIN LATERAL unnest(r.bins, r.counts) AS u(bin, n)
GROUP BY 1, 2, 3
