-- Engagement rollups, part 3: reply-length and time-to-response histogram bins, at grains 0,
-- 2, 3 and 5 as in 11_rollup_actions.sql. See 10_rollup_counts.sql.
INSERT INTO rollup_histograms AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin, n)
SELECT app_id, CASE GROUPING(quarter, hour, day, app_version, platform, campaign, variant)
                   WHEN 80 THEN 0 WHEN 95 THEN 2 WHEN 111 THEN 3 ELSE 5 END::smallint,
    coalesce(quarter, hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
    metric, bin, count(*)
FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
             coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, m.metric, m.bin
      FROM staging_events
      CROSS JOIN LATERAL (VALUES
          (1::smallint, CASE WHEN user_text_length IS NOT NULL THEN tapwire_reply_bin(user_text_length) END),
          (2::smallint, CASE WHEN delivered_at IS NOT NULL THEN tapwire_latency_bin(event_time, delivered_at) END)) m (metric, bin)
      WHERE type = 'response' AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier'
        AND m.bin IS NOT NULL
        AND (m.metric = 2 OR action_identifier <> 'com.apple.UNNotificationDefaultActionIdentifier')) f
GROUP BY app_id, category, metric, bin, GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour), (day),
                   (quarter, app_version, platform, campaign, variant))
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin) DO UPDATE SET
    n = t.n + EXCLUDED.n
