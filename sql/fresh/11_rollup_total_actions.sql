-- Report rollups, part 2: responses per registered action (any action but the system open and
-- dismiss), per category, at the grains of 10_rollup_totals.sql.
INSERT INTO rollup_total_actions AS t (app_id, grain, bucket, category, action, n)
SELECT app_id, g.grain, CASE WHEN g.grain = 0 THEN quarter ELSE tapwire_day_block(day, g.grain) END, category, action_identifier, count(*)
FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_utc_day(event_time) AS day, category, action_identifier
      FROM staging_events
      WHERE type = 'response' AND action_identifier NOT IN
          ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) f
CROSS JOIN (VALUES (0::smallint), (2), (3), (4), (5), (6)) AS g(grain)
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT (app_id, grain, bucket, category, action) DO UPDATE SET n = t.n + EXCLUDED.n
