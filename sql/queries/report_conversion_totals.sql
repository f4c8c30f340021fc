-- Every conversion of app $1 by name, currency and kind (1 direct, 2 influenced, 3 unattributed),
-- by the conversion's own time: the whole UTC days $2 from rollup_conversion_totals, the parts of
-- the days the range cuts ([$3[i], $4[i])) from conversion_credits (see report_conversions.sql).
SELECT name, currency, kind, sum(conversions)::bigint AS conversions, sum(value_sum)::text AS value_sum
FROM (SELECT name, currency, kind, conversions, value_sum
      FROM rollup_conversion_totals
      WHERE app_id = $1::bigint AND day = ANY ($2::timestamptz[])
      UNION ALL
      SELECT c.name, c.currency, c.kind, 1, c.value
      FROM unnest($3::timestamptz[], $4::timestamptz[]) AS r (lo, hi)
      JOIN conversion_credits c ON c.app_id = $1::bigint AND c.event_time >= r.lo AND c.event_time < r.hi) t
GROUP BY 1, 2, 3
HAVING sum(conversions) <> 0
