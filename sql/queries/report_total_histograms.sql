-- The histogram bins of app $1 by category and metric, over the whole UTC days $2 (grain 2) and
-- the quarter hours $3 (grain 0) of the days the range's edges cut (as report_totals.sql), summed
-- per bin.
SELECT h.category, h.metric, b.bin, sum(b.n)::bigint AS count
FROM rollup_total_histograms h
CROSS JOIN LATERAL unnest(h.bins, h.counts) AS b(bin, n)
WHERE h.app_id = $1::bigint
  AND ((h.grain = 2 AND h.bucket = ANY ($2::timestamptz[])) OR (h.grain = 0 AND h.bucket = ANY ($3::timestamptz[])))
GROUP BY 1, 2, 3
