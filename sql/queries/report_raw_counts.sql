-- Engagement counts of app $1 computed from events in [$2, $3), with the columns of
-- report_counts.sql: the raw-events report only (ReportSource.rawEvents), the oracle the
-- benchmark and the consistency tests hold the rollup report equal to. The rollup report reads
-- no SQL aggregate of events: its edge minutes go through TapwireCore.RollupDeltas
-- (TapwireStore/ReportEdgeEvents.swift). $4 time zone; $5-$8 filters (NULL = any); $9 the --by dimension.
SELECT CASE $9::text WHEN 'appVersion' THEN e.app_version WHEN 'platform' THEN e.platform
                      WHEN 'campaign' THEN coalesce(e.campaign, '') WHEN 'variant' THEN coalesce(e.variant, '') ELSE '' END AS group_value,
    e.app_version, to_char(e.event_time AT TIME ZONE $4::text, 'YYYY-MM-DD') AS day, e.category, e.has_media,
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
  AND ($5::text IS NULL OR e.app_version = $5::text) AND ($6::text IS NULL OR e.platform = $6::text)
  AND ($7::text IS NULL OR coalesce(e.campaign, '') = $7::text) AND ($8::text IS NULL OR coalesce(e.variant, '') = $8::text)
GROUP BY 1, 2, 3, 4, 5
