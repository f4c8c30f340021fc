-- Release-regression rollups (migration 0080), part 2: responses per registered action, per
-- UTC day, category, app version and platform, an element per hour of the day, as
-- 13_rollup_release_counts.sql.
INSERT INTO rollup_release_actions AS t (app_id, day, category, app_version, platform, action, n)
SELECT k.app_id, k.day, k.category, k.app_version, k.platform, k.action, array_agg(coalesce(c.n, 0) ORDER BY h.hour)
FROM (SELECT DISTINCT app_id, tapwire_utc_day(event_time) AS day, category, app_version, platform, action_identifier AS action
      FROM staging_events
      WHERE type = 'response' AND action_identifier NOT IN
          ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) k
CROSS JOIN generate_series(0, 23) AS h(hour)
LEFT JOIN (
    SELECT app_id, tapwire_utc_day(event_time) AS day, date_part('hour', event_time AT TIME ZONE 'UTC')::integer AS hour,
           category, app_version, platform, action_identifier AS action, count(*) AS n
    FROM staging_events
    WHERE type = 'response'
    GROUP BY 1, 2, 3, 4, 5, 6, 7
) c ON c.app_id = k.app_id AND c.day = k.day AND c.hour = h.hour AND c.category = k.category
   AND c.app_version = k.app_version AND c.platform = k.platform AND c.action = k.action
GROUP BY k.app_id, k.day, k.category, k.app_version, k.platform, k.action
ORDER BY 1, 2, 3, 4, 5, 6
ON CONFLICT (app_id, day, category, app_version, platform, action) DO UPDATE SET
    n = ARRAY(SELECT a + b FROM unnest(t.n, EXCLUDED.n) AS u(a, b))
