-- Report rollups (migration 0150), part 1: totals per category and rich/text-only, by quarter hour
-- (grain 0), UTC day (grain 2) and the blocks of 2, 4, 8 and 16 days that hold the day (grains 3
-- to 6, added to what the other days of the block put there). staging_events holds one day of events staged by the oracle
-- (sql/oracle/); the fold computes the same rows in TapwireCore.RollupDeltas (see README.md).
INSERT INTO rollup_totals AS t (app_id, grain, bucket, category, has_media, delivered, sent, media_requested, opens, dismissals,
    actions, replies)
SELECT app_id, g.grain, CASE WHEN g.grain = 0 THEN quarter ELSE tapwire_day_block(day, g.grain) END, category, has_media,
    count(*) FILTER (WHERE type = 'delivered'),
    count(*) FILTER (WHERE type = 'sent'),
    count(*) FILTER (WHERE type = 'delivered' AND media_requested),
    count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDefaultActionIdentifier'),
    count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDismissActionIdentifier'),
    count(*) FILTER (WHERE type = 'response' AND action_identifier NOT IN
        ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')),
    count(*) FILTER (WHERE type = 'response' AND user_text_length IS NOT NULL AND action_identifier NOT IN
        ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier'))
FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_utc_day(event_time) AS day, category, has_media, type,
             action_identifier, user_text_length, media_requested
      FROM staging_events) f
CROSS JOIN (VALUES (0::smallint), (2), (3), (4), (5), (6)) AS g(grain)
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT (app_id, grain, bucket, category, has_media) DO UPDATE SET
    delivered = t.delivered + EXCLUDED.delivered, sent = t.sent + EXCLUDED.sent,
    media_requested = t.media_requested + EXCLUDED.media_requested, opens = t.opens + EXCLUDED.opens,
    dismissals = t.dismissals + EXCLUDED.dismissals, actions = t.actions + EXCLUDED.actions,
    replies = t.replies + EXCLUDED.replies
