-- Report rollups, part 2: responses per registered action (any action but the system open and
-- dismiss), per category, by quarter hour (grain 0) and UTC day (grain 2). See 10_rollup_totals.sql.
INSERT INTO rollup_total_actions AS t (app_id, grain, bucket, category, action, n)
SELECT app_id, CASE WHEN GROUPING(quarter) = 0 THEN 0 ELSE 2 END::smallint, coalesce(quarter, day), category, action_identifier, count(*)
FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_utc_day(event_time) AS day, category, action_identifier
      FROM staging_events
      WHERE type = 'response' AND action_identifier NOT IN
          ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) f
GROUP BY app_id, category, action_identifier, GROUPING SETS ((quarter), (day))
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT (app_id, grain, bucket, category, action) DO UPDATE SET n = t.n + EXCLUDED.n
