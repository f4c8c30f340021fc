-- The columns of report_strata.sql (day: the UTC day, days since 1970-01-01) computed from
-- events of app $1 in [$2, $3): the raw-events report only, the oracle (see
-- report_raw_counts.sql). $4-$7 filters (NULL = any); $8 the --by dimension.
SELECT CASE $8::text WHEN 'appVersion' THEN e.app_version WHEN 'platform' THEN e.platform
                     WHEN 'campaign' THEN coalesce(e.campaign, '') WHEN 'variant' THEN coalesce(e.variant, '') ELSE '' END AS group_value,
    floor(extract(epoch FROM e.event_time) / 86400)::bigint AS day,
    e.category, e.app_version, e.platform, coalesce(e.campaign, '') AS campaign, e.has_media,
    count(*) FILTER (WHERE e.type = 'delivered') AS delivered,
    count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier = 'com.apple.UNNotificationDefaultActionIdentifier') AS opens,
    count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier NOT IN
        ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) AS actions
FROM events e
WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
  AND ($4::text IS NULL OR e.app_version = $4::text) AND ($5::text IS NULL OR e.platform = $5::text)
  AND ($6::text IS NULL OR coalesce(e.campaign, '') = $6::text) AND ($7::text IS NULL OR coalesce(e.variant, '') = $7::text)
GROUP BY 1, 2, 3, 4, 5, 6, 7
