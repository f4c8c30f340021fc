-- Recomputes the rollups of [$2, $3) (whole UTC days) for app $1, or every app when $1 is
-- NULL, from events: the same groups as the statements of sql/fresh/10-12. The caller runs it in
-- one transaction after rollups_rebuild_lock.sql and rollups_rebuild_delete.sql.
WITH rollup_counts_rebuilt AS (
    INSERT INTO rollup_counts AS t (app_id, grain, hour, category, app_version, platform, campaign, variant,
        has_media, delivered, sent, media_requested, opens, dismissals, actions, replies)
    SELECT app_id, CASE GROUPING(app_version, platform, campaign, variant) WHEN 0 THEN 0 ELSE 1 END::smallint,
        hour, category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
        has_media,
        count(*) FILTER (WHERE type = 'delivered'),
        count(*) FILTER (WHERE type = 'sent'),
        count(*) FILTER (WHERE type = 'delivered' AND media_requested),
        count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDefaultActionIdentifier'),
        count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDismissActionIdentifier'),
        count(*) FILTER (WHERE type = 'response' AND action_identifier NOT IN
            ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')),
        count(*) FILTER (WHERE type = 'response' AND user_text_length IS NOT NULL AND action_identifier NOT IN
            ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier'))
    FROM (SELECT app_id, tapwire_hour(event_time) AS hour, category, app_version, platform,
                 coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, has_media, type,
                 action_identifier, user_text_length, media_requested
          FROM events WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND event_time >= $2::timestamptz AND event_time < $3::timestamptz) f
    GROUP BY app_id, hour, category, has_media, GROUPING SETS ((app_version, platform, campaign, variant), (app_version))
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
), rollup_actions_rebuilt AS (
    INSERT INTO rollup_actions AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, action, n)
    SELECT app_id, CASE GROUPING(hour, day, app_version, platform, campaign, variant) WHEN 16 THEN 0 WHEN 31 THEN 2 ELSE 3 END::smallint,
        coalesce(hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
        action_identifier, count(*)
    FROM (SELECT app_id, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
                 coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, action_identifier
          FROM events
          WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND event_time >= $2::timestamptz AND event_time < $3::timestamptz
            AND type = 'response' AND action_identifier NOT IN
              ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) f
    GROUP BY app_id, category, action_identifier, GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour), (day))
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
)
INSERT INTO rollup_histograms AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin, n)
SELECT app_id, CASE GROUPING(hour, day, app_version, platform, campaign, variant) WHEN 16 THEN 0 WHEN 31 THEN 2 ELSE 3 END::smallint,
    coalesce(hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
    metric, bin, count(*)
FROM (SELECT app_id, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
             coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, m.metric, m.bin
      FROM events
      CROSS JOIN LATERAL (VALUES
          (1::smallint, CASE WHEN user_text_length IS NOT NULL THEN tapwire_reply_bin(user_text_length) END),
          (2::smallint, CASE WHEN delivered_at IS NOT NULL THEN tapwire_latency_bin(event_time, delivered_at) END)) m (metric, bin)
      WHERE ($1::bigint IS NULL OR app_id = $1::bigint) AND event_time >= $2::timestamptz AND event_time < $3::timestamptz
        AND type = 'response' AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier'
        AND m.bin IS NOT NULL
        AND (m.metric = 2 OR action_identifier <> 'com.apple.UNNotificationDefaultActionIdentifier')) f
GROUP BY app_id, category, metric, bin, GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour), (day))
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
