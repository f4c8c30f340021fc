-- Responses per registered action of app $1 by category, over the whole UTC days $2 (grain 2) and
-- the quarter hours $3 (grain 0) of the days the range's edges cut (as report_totals.sql).
SELECT category, action, sum(n)::bigint AS count
FROM rollup_total_actions
WHERE app_id = $1::bigint
  AND ((grain = 2 AND bucket = ANY ($2::timestamptz[])) OR (grain = 0 AND bucket = ANY ($3::timestamptz[])))
GROUP BY 1, 2
