-- Every conversion of app $1 by name, currency and kind (1 direct, 2 influenced, 3 unattributed),
-- by the conversion's own time: the whole UTC days $2 from rollup_conversion_totals, the parts of
-- the days the range cuts from conversion_credits: the rows of [$3[i], $4[i]) added ($5[i] = 1)
-- or, for the days $6 read whole from the rollup, taken away (-1; see report_conversions.sql).
SELECT name, currency, kind, sum(conversions)::bigint AS conversions, sum(value_sum) AS value_sum
FROM (SELECT name, currency, kind, conversions, value_sum
      FROM rollup_conversion_totals
      WHERE app_id = $1::bigint AND (day = ANY ($2::timestamptz[]) OR day = ANY ($6::timestamptz[]))
      UNION ALL
      SELECT c.name, c.currency, c.kind, r.sign, r.sign * c.value
      FROM unnest($3::timestamptz[], $4::timestamptz[], $5::int[]) AS r (lo, hi, sign)
      JOIN conversion_credits c ON c.app_id = $1::bigint AND c.event_time >= r.lo AND c.event_time < r.hi) t
GROUP BY 1, 2, 3
HAVING sum(conversions) <> 0
