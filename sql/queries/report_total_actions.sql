-- Responses per registered action of app $1 by category, over the blocks of days ($2 grains, $3
-- first midnights) and the quarter hours $4 of the days the range's edges cut (as report_totals.sql).
SELECT category, action, sum(n)::bigint AS count
FROM (SELECT t.category, t.action, t.n
      FROM unnest($2::smallint[], $3::timestamptz[]) AS b(grain, bucket)
      JOIN rollup_total_actions t ON t.app_id = $1::bigint AND t.grain = b.grain AND t.bucket = b.bucket
      UNION ALL
      SELECT category, action, n
      FROM rollup_total_actions
      WHERE app_id = $1::bigint AND grain = 0 AND bucket = ANY ($4::timestamptz[])) r
GROUP BY 1, 2
