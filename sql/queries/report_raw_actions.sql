-- Counts per registered action of app $1 computed from events in [$2, $3), with the columns of
-- report_actions.sql: the raw-events report only, the oracle (see report_raw_counts.sql).
-- $4-$7 filters (NULL = any); $8 the --by dimension.
SELECT CASE $8::text WHEN 'appVersion' THEN e.app_version WHEN 'platform' THEN e.platform
                      WHEN 'campaign' THEN coalesce(e.campaign, '') WHEN 'variant' THEN coalesce(e.variant, '') ELSE '' END AS group_value,
    e.category, e.action_identifier AS action, count(*) AS count
FROM events e
WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
  AND e.type = 'response' AND e.action_identifier NOT IN
        ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')
  AND ($4::text IS NULL OR e.app_version = $4::text) AND ($5::text IS NULL OR e.platform = $5::text)
  AND ($6::text IS NULL OR coalesce(e.campaign, '') = $6::text) AND ($7::text IS NULL OR coalesce(e.variant, '') = $7::text)
GROUP BY 1, 2, 3
