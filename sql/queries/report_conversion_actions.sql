-- Direct conversions of app $1 by category, the action of the tap that preceded them and
-- conversion name: the whole UTC days $2 from rollup_conversion_actions, the parts of the days the
-- range cuts from conversion_credits by the tap's time: the rows of [$3[i], $4[i]) added ($5[i] =
-- 1) or, for the days $6 read whole from the rollup, taken away (-1; see report_conversions.sql).
SELECT category, action_identifier AS action, name, sum(direct)::bigint AS direct
FROM (SELECT category, action_identifier, name, direct
      FROM rollup_conversion_actions
      WHERE app_id = $1::bigint AND (day = ANY ($2::timestamptz[]) OR day = ANY ($6::timestamptz[]))
      UNION ALL
      SELECT c.category, c.action_identifier, c.name, r.sign
      FROM unnest($3::timestamptz[], $4::timestamptz[], $5::int[]) AS r (lo, hi, sign)
      JOIN conversion_credits c ON c.app_id = $1::bigint AND c.touch_time >= r.lo AND c.touch_time < r.hi
      WHERE c.kind = 1) a
GROUP BY 1, 2, 3
HAVING sum(direct) <> 0
