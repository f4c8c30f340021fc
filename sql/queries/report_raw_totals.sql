-- The totals of report_totals.sql computed from the events of app $1 in [$2, $3): the raw-events
-- report, which a filtered or grouped report reads and the tests and the benchmark hold the
-- rollup report equal to (docs/reports.md, "What each report reads"). $4: the filters, one element
-- per dimension (tapwire_event_matches, migration 0150); $5: the --by dimension ('' for none).
-- cut_day is the UTC day (days since 1970-01-01) of an event whose day the range cuts. Conversions
-- are attribution's (docs/outcomes.md) and assignments the holdouts' (docs/holdouts.md): every
-- raw-events report leaves them out, as the rollups do.
SELECT tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version) AS group_value, e.category, e.has_media,
    CASE WHEN tapwire_utc_day(e.event_time) >= $2::timestamptz
              AND tapwire_utc_day(e.event_time) + interval '86400 seconds' <= $3::timestamptz THEN NULL
         ELSE date_part('epoch', tapwire_utc_day(e.event_time))::bigint / 86400 END AS cut_day,
    count(*) FILTER (WHERE e.type = 'delivered') AS delivered,
    count(*) FILTER (WHERE e.type = 'sent') AS sent,
    count(*) FILTER (WHERE e.type = 'delivered' AND e.media_requested) AS media_requested,
    count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier = 'com.apple.UNNotificationDefaultActionIdentifier') AS opens,
    count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier = 'com.apple.UNNotificationDismissActionIdentifier') AS dismissals,
    count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier NOT IN
        ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) AS actions,
    count(*) FILTER (WHERE e.type = 'response' AND e.user_text_length IS NOT NULL AND e.action_identifier NOT IN
        ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) AS replies
FROM events e
WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
  AND tapwire_event_matches($4::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version)
  AND e.type NOT IN ('conversion', 'assignment')
GROUP BY 1, 2, 3, 4
