-- Engagement rollups (migration 0010), part 1: counts per UTC hour, category, dimensions and
-- rich/text-only, at grain 0 (every dimension), 1 (app version only), 4 (per UTC day, by app
-- version, platform and campaign: the strata of the adjusted difference), 5 (per quarter
-- hour, every dimension; migration 0100) and 6 (per quarter hour, app version only). staging_events holds
-- one day of events staged by `tapwire rollups rebuild` (sql/queries/rollups_rebuild_stage.sql);
-- group commits compute the same rows in TapwireCore.RollupDeltas (see README.md).
INSERT INTO rollup_counts AS t (app_id, grain, hour, category, app_version, platform, campaign, variant,
    has_media, delivered, sent, media_requested, opens, dismissals, actions, replies)
SELECT app_id, CASE GROUPING(quarter, hour, day, app_version, platform, campaign, variant)
                   WHEN 80 THEN 0 WHEN 87 THEN 1 WHEN 97 THEN 4 WHEN 48 THEN 5 ELSE 6 END::smallint,
    coalesce(quarter, hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
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
FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
             coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, has_media, type,
             action_identifier, user_text_length, media_requested
      FROM staging_events) f
GROUP BY app_id, category, has_media,
    GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour, app_version), (day, app_version, platform, campaign),
                   (quarter, app_version, platform, campaign, variant), (quarter, app_version))
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, has_media) DO UPDATE SET
    delivered = t.delivered + EXCLUDED.delivered, sent = t.sent + EXCLUDED.sent,
    media_requested = t.media_requested + EXCLUDED.media_requested, opens = t.opens + EXCLUDED.opens,
    dismissals = t.dismissals + EXCLUDED.dismissals, actions = t.actions + EXCLUDED.actions,
    replies = t.replies + EXCLUDED.replies
