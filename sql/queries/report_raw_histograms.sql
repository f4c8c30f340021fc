-- Percentile histogram bins of app $1 computed from events in [$2, $3), with the columns of
-- report_histograms.sql: the raw-events report only, the oracle (see report_raw_counts.sql).
-- $4-$7 filters (NULL = any); $8 the --by dimension.
SELECT CASE $8::text WHEN 'appVersion' THEN e.app_version WHEN 'platform' THEN e.platform
                      WHEN 'campaign' THEN coalesce(e.campaign, '') WHEN 'variant' THEN coalesce(e.variant, '') ELSE '' END AS group_value,
    e.category, m.metric, m.bin, count(*) AS count
FROM events e
CROSS JOIN LATERAL (VALUES
    (1::smallint, CASE WHEN e.user_text_length IS NOT NULL THEN tapwire_reply_bin(e.user_text_length) END),
    (2::smallint, CASE WHEN e.delivered_at IS NOT NULL THEN tapwire_latency_bin(e.event_time, e.delivered_at) END)) m (metric, bin)
WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
  AND e.type = 'response' AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier'
  AND m.bin IS NOT NULL
  AND (m.metric = 2 OR e.action_identifier <> 'com.apple.UNNotificationDefaultActionIdentifier')
  AND ($4::text IS NULL OR e.app_version = $4::text) AND ($5::text IS NULL OR e.platform = $5::text)
  AND ($6::text IS NULL OR coalesce(e.campaign, '') = $6::text) AND ($7::text IS NULL OR coalesce(e.variant, '') = $7::text)
GROUP BY 1, 2, 3, 4
