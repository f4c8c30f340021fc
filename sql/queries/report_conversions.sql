-- Conversions of app $1 by category, rich/text-only, name and currency (docs/outcomes.md): the
-- whole UTC days $2 from rollup_conversions, and the parts of the days the range cuts
-- ([$3[i], $4[i]), each within one UTC day) from notification_conversions by the touch time of
-- the notification's credited tap or delivery, per cut day (`cut_day`, days since 1970-01-01; NULL
-- for the whole days). `converted` counts notifications; value_sq and value_cube are the sums of
-- each converted notification's value squared and cubed. The plan is TapwireReport/ReportPlan.swift.
SELECT category, has_media, name, currency, NULL::bigint AS cut_day, sum(direct)::bigint AS direct,
    sum(influenced)::bigint AS influenced, sum(converted)::bigint AS converted, sum(value_sum)::text AS value_sum,
    sum(value_sq)::text AS value_sq, sum(value_cube)::text AS value_cube
FROM rollup_conversions
WHERE app_id = $1::bigint AND day = ANY ($2::timestamptz[])
GROUP BY 1, 2, 3, 4
HAVING sum(converted) <> 0 OR sum(direct) <> 0 OR sum(influenced) <> 0
UNION ALL
SELECT n.category, n.has_media, n.name, n.currency, date_part('epoch', tapwire_utc_day(n.touch_time))::bigint / 86400,
    sum(n.direct)::bigint, sum(n.influenced)::bigint, count(*)::bigint, sum(n.value)::text, sum(n.value * n.value)::text,
    sum(n.value * n.value * n.value)::text
FROM unnest($3::timestamptz[], $4::timestamptz[]) AS r (lo, hi)
JOIN notification_conversions n ON n.app_id = $1::bigint AND n.touch_time >= r.lo AND n.touch_time < r.hi
GROUP BY 1, 2, 3, 4, 5
