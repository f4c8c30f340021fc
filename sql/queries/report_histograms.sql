-- Percentile histograms (metric 1 reply length, 2 time to response) of app $1 over [$2, $3)
-- by --by group and category: whole hours from rollup_histograms at grain $5, the other hours
-- of the range from events. Parameters as in report_counts.sql.
WITH raw_hours AS (
    SELECT h FROM generate_series(tapwire_hour($2::timestamptz), $3::timestamptz - interval '1 microsecond', interval '1 hour') h
    WHERE $11::boolean OR NOT (h >= $2::timestamptz AND h + interval '1 hour' <= $3::timestamptz
        AND (h AT TIME ZONE $4::text)::date = ((h + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $4::text)::date)
), parts AS (
    SELECT CASE $10::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                          WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
        r.category, r.metric, r.bin, r.n
    FROM rollup_histograms r
    WHERE r.app_id = $1::bigint AND r.grain = $5::smallint AND NOT $11::boolean
      AND r.hour >= $2::timestamptz AND r.hour + interval '1 hour' <= $3::timestamptz
      AND (r.hour AT TIME ZONE $4::text)::date = ((r.hour + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $4::text)::date
      AND ($6::text IS NULL OR r.app_version = $6::text) AND ($7::text IS NULL OR r.platform = $7::text)
      AND ($8::text IS NULL OR r.campaign = $8::text) AND ($9::text IS NULL OR r.variant = $9::text)
    UNION ALL
    SELECT CASE $10::text WHEN 'appVersion' THEN e.app_version WHEN 'platform' THEN e.platform
                          WHEN 'campaign' THEN coalesce(e.campaign, '') WHEN 'variant' THEN coalesce(e.variant, '') ELSE '' END,
        e.category, m.metric, m.bin, count(*)
    FROM raw_hours rh
    JOIN events e ON e.app_id = $1::bigint
        AND e.event_time >= greatest(rh.h, $2::timestamptz) AND e.event_time < least(rh.h + interval '1 hour', $3::timestamptz)
    CROSS JOIN LATERAL (VALUES
        (1::smallint, CASE WHEN e.user_text_length IS NOT NULL THEN tapwire_reply_bin(e.user_text_length) END),
        (2::smallint, CASE WHEN e.delivered_at IS NOT NULL THEN tapwire_latency_bin(e.event_time, e.delivered_at) END)) m (metric, bin)
    WHERE e.type = 'response' AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier'
      AND m.bin IS NOT NULL
      AND (m.metric = 2 OR e.action_identifier <> 'com.apple.UNNotificationDefaultActionIdentifier')
      AND ($6::text IS NULL OR e.app_version = $6::text) AND ($7::text IS NULL OR e.platform = $7::text)
      AND ($8::text IS NULL OR coalesce(e.campaign, '') = $8::text) AND ($9::text IS NULL OR coalesce(e.variant, '') = $9::text)
    GROUP BY 1, 2, 3, 4
)
SELECT group_value, category, metric, bin, sum(n)::bigint
FROM parts
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4
