-- Report rollups, part 5: per category and app version, delivered and dismissals by UTC day (grain
-- 2) and the blocks of days that hold it (grains 3 to 6), as 10_rollup_totals.sql; a row for every
-- day, category and version with events.
INSERT INTO rollup_dismiss_base AS t (app_id, grain, bucket, category, app_version, delivered, dismissals)
SELECT app_id, g.grain, tapwire_day_block(tapwire_utc_day(event_time), g.grain), category, app_version,
    count(*) FILTER (WHERE type = 'delivered'),
    count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDismissActionIdentifier')
FROM staging_events
CROSS JOIN (VALUES (2::smallint), (3), (4), (5), (6)) AS g(grain)
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT (app_id, grain, bucket, category, app_version) DO UPDATE SET
    delivered = t.delivered + EXCLUDED.delivered, dismissals = t.dismissals + EXCLUDED.dismissals
