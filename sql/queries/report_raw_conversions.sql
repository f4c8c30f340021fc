-- The conversions of report_conversions.sql computed from notification_conversions over the
-- whole range [$2, $3) of app $1, by --by group ($5): what a filtered or grouped report reads
-- (docs/reports.md). A credited notification knows its campaign and platform only, so $4 (the
-- filters, tapwire_event_matches) and $5 may name those dimensions alone; the report does not
-- read conversions otherwise. cut_day as in report_raw_totals.sql.
SELECT tapwire_dimension_value($5::text, NULL, n.platform, n.campaign, NULL, NULL) AS group_value, n.category, n.has_media,
    n.name, n.currency,
    CASE WHEN tapwire_utc_day(n.touch_time) >= $2::timestamptz
              AND tapwire_utc_day(n.touch_time) + interval '86400 seconds' <= $3::timestamptz THEN NULL
         ELSE date_part('epoch', tapwire_utc_day(n.touch_time))::bigint / 86400 END AS cut_day,
    sum(n.direct)::bigint AS direct, sum(n.influenced)::bigint AS influenced, count(*)::bigint AS converted,
    sum(n.value) AS value_sum, sum(n.value * n.value) AS value_sq, sum(n.value * n.value * n.value) AS value_cube
FROM notification_conversions n
WHERE n.app_id = $1::bigint AND n.touch_time >= $2::timestamptz AND n.touch_time < $3::timestamptz
  AND tapwire_event_matches($4::text[], NULL, n.platform, n.campaign, NULL, NULL)
GROUP BY 1, 2, 3, 4, 5, 6
