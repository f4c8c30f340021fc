-- Responses per registered action computed from the events of app $1 in [$2, $3) (see
-- report_raw_totals.sql), by --by group ($5) and category. $4: the filters.
SELECT tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version) AS group_value, e.category, e.action_identifier AS action, count(*) AS count
FROM events e
WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
  AND tapwire_event_matches($4::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version)
  AND e.type = 'response' AND e.action_identifier NOT IN
      ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')
GROUP BY 1, 2, 3
