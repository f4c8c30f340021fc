-- Report rollups, part 5 summed over the versions (migration 0301): per category, delivered and
-- dismissals by UTC day (grain 2) and the blocks of days that hold it (grains 3 to 6), whatever
-- the app version; a row for every day and category with events.
INSERT INTO rollup_dismiss_blocks AS t (app_id, grain, bucket, category, delivered, dismissals)
SELECT app_id, g.grain, tapwire_day_block(tapwire_utc_day(event_time), g.grain), category,
    count(*) FILTER (WHERE type = 'delivered'),
    count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDismissActionIdentifier')
FROM staging_events
CROSS JOIN (VALUES (2::smallint), (3), (4), (5), (6)) AS g(grain)
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4
ON CONFLICT (app_id, grain, bucket, category) DO UPDATE SET
    delivered = t.delivered + EXCLUDED.delivered, dismissals = t.dismissals + EXCLUDED.dismissals
