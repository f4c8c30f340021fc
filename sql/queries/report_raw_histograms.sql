-- The histogram bins computed from the events of app $1 in [$2, $3) (see report_raw_totals.sql),
-- by --by group ($5), category, metric and bin: reply length (tapwire_reply_bin) of registered
-- actions carrying one, and seconds from delivery (tapwire_latency_bin) of engaged responses
-- carrying their delivery time. $4: the filters.
SELECT group_value, category, metric, bin, count(*) AS count
FROM (
    SELECT tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version) AS group_value, e.category, 1 AS metric, tapwire_reply_bin(e.user_text_length) AS bin
    FROM events e
    WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
      AND tapwire_event_matches($4::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version)
      AND e.type = 'response' AND e.user_text_length IS NOT NULL AND e.action_identifier NOT IN
          ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')
    UNION ALL
    SELECT tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version), e.category, 2, tapwire_latency_bin(e.event_time, e.delivered_at)
    FROM events e
    WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
      AND tapwire_event_matches($4::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version)
      AND e.type = 'response' AND e.delivered_at IS NOT NULL
      AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier'
) b
GROUP BY 1, 2, 3, 4
