-- Direct conversions of app $1 by category, the action of the tap that preceded them and
-- conversion name: the whole UTC days $2 from rollup_conversion_actions, the parts of the days the
-- range cuts ([$3[i], $4[i])) from conversion_credits by the tap's time (see report_conversions.sql).
SELECT category, action_identifier AS action, name, sum(direct)::bigint AS direct
FROM (SELECT category, action_identifier, name, direct
      FROM rollup_conversion_actions
      WHERE app_id = $1::bigint AND day = ANY ($2::timestamptz[])
      UNION ALL
      SELECT c.category, c.action_identifier, c.name, 1
      FROM unnest($3::timestamptz[], $4::timestamptz[]) AS r (lo, hi)
      JOIN conversion_credits c ON c.app_id = $1::bigint AND c.touch_time >= r.lo AND c.touch_time < r.hi
      WHERE c.kind = 1) a
GROUP BY 1, 2, 3
HAVING sum(direct) <> 0
