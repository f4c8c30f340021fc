-- Conversions of app $1 by category, rich/text-only, name and currency (docs/outcomes.md): the
-- whole UTC days $2 from rollup_conversions, and the parts of the days the range cuts from
-- notification_conversions by the touch time of the notification's credited tap or delivery, per
-- cut day (`cut_day`, days since 1970-01-01; NULL for the whole days). A cut day's part is the
-- rows of [$3[i], $4[i]) with $5[i] = 1; or, for a part of more than half the day, its whole day
-- from rollup_conversions ($6) less the rows of the rest of the day ([$3[i], $4[i]) with $5[i] =
-- -1): exact either way (counts and decimal sums add), at most 12 hours of rows per cut day.
-- `converted` counts notifications; value_sq and value_cube are the sums of each converted
-- notification's value squared and cubed. The plan is TapwireReport/ReportPlan.swift.
SELECT category, has_media, name, currency, NULL::bigint AS cut_day, sum(direct)::bigint AS direct,
    sum(influenced)::bigint AS influenced, sum(converted)::bigint AS converted, sum(value_sum) AS value_sum,
    sum(value_sq) AS value_sq, sum(value_cube) AS value_cube
FROM rollup_conversions
WHERE app_id = $1::bigint AND day = ANY ($2::timestamptz[])
GROUP BY 1, 2, 3, 4
HAVING sum(converted) <> 0 OR sum(direct) <> 0 OR sum(influenced) <> 0
UNION ALL
SELECT category, has_media, name, currency, cut_day, sum(direct)::bigint, sum(influenced)::bigint, sum(converted)::bigint,
    sum(value_sum), sum(value_sq), sum(value_cube)
FROM (SELECT category, has_media, name, currency, date_part('epoch', day)::bigint / 86400 AS cut_day, direct, influenced,
          converted, value_sum, value_sq, value_cube
      FROM rollup_conversions
      WHERE app_id = $1::bigint AND day = ANY ($6::timestamptz[])
      UNION ALL
      SELECT n.category, n.has_media, n.name, n.currency, date_part('epoch', tapwire_utc_day(n.touch_time))::bigint / 86400,
          r.sign * n.direct, r.sign * n.influenced, r.sign, r.sign * n.value, r.sign * n.value * n.value,
          r.sign * n.value * n.value * n.value
      FROM unnest($3::timestamptz[], $4::timestamptz[], $5::int[]) AS r (lo, hi, sign)
      JOIN notification_conversions n ON n.app_id = $1::bigint AND n.touch_time >= r.lo AND n.touch_time < r.hi) c
GROUP BY 1, 2, 3, 4, 5
-- A cut day whose conversions all fall in the rest of the day nets to nothing: no row, as from
-- the rows of its part.
HAVING sum(converted) <> 0 OR sum(direct) <> 0 OR sum(influenced) <> 0
