-- The engagement line of report_trend.sql computed from the events of app $1 in [$2, $3) (see
-- report_raw_totals.sql): delivered and engaged (opens and registered actions) by --by group ($5),
-- category and local day in time zone $6. $4: the filters.
SELECT tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version) AS group_value, e.category,
    to_char(e.event_time AT TIME ZONE $6::text, 'YYYY-MM-DD') AS day,
    count(*) FILTER (WHERE e.type = 'delivered') AS delivered,
    count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier') AS engaged
FROM events e
WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
  AND tapwire_event_matches($4::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version)
  AND e.type NOT IN ('conversion', 'assignment')
GROUP BY 1, 2, 3
