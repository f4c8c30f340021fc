-- Engagement rollups, part 2: count per registered action, at grain 0 (hourly, every
-- dimension), 2 (hourly, none), 3 (UTC day, none) and 5 (quarter hour, every dimension). See 10_rollup_counts.sql.
INSERT INTO rollup_actions AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, action, n)
SELECT app_id, CASE GROUPING(quarter, hour, day, app_version, platform, campaign, variant)
                   WHEN 80 THEN 0 WHEN 95 THEN 2 WHEN 111 THEN 3 ELSE 5 END::smallint,
    coalesce(quarter, hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
    action_identifier, count(*)
FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
             coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, action_identifier
      FROM staging_events
      WHERE type = 'response' AND action_identifier NOT IN
          ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) f
GROUP BY app_id, category, action_identifier, GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour), (day),
                   (quarter, app_version, platform, campaign, variant))
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, action) DO UPDATE SET
    n = t.n + EXCLUDED.n
