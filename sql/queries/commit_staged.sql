-- Moves the staged rows of one group commit into events, skipping every (app_id, event_id)
-- already stored, by any collector at any time, and repeats within the group (the first
-- staged copy wins). Returns the staging seq of each row newly stored; the caller counts
-- the others as duplicates.
--
-- `fresh` holds exactly the newly stored rows, so anything derived from it (the rollups)
-- counts each event once. Rows are taken in key order so concurrent collectors lock the
-- dedup index in the same order.
WITH fresh_ids AS (
    INSERT INTO event_ids (app_id, event_id, received_at)
    SELECT DISTINCT ON (app_id, event_id) app_id, event_id, received_at
    FROM staging_events
    ORDER BY app_id, event_id, seq
    ON CONFLICT (app_id, event_id) DO NOTHING
    RETURNING app_id, event_id
), fresh AS MATERIALIZED (
    SELECT DISTINCT ON (s.app_id, s.event_id) s.*
    FROM staging_events s
    JOIN fresh_ids f ON f.app_id = s.app_id AND f.event_id = s.event_id
    ORDER BY s.app_id, s.event_id, s.seq
), stored AS (
    INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, time_clamped,
        notification_id, category, action_identifier, user_text_length, has_media, media_types,
        media_requested, category_registered, campaign, variant, delivered_at, app_version, build,
        platform, os_version, sdk, device_id)
    SELECT app_id, event_time, event_id, type, device_time, received_at, time_clamped,
        notification_id, category, action_identifier, user_text_length, has_media, media_types,
        media_requested, category_registered, campaign, variant, delivered_at, app_version, build,
        platform, os_version, sdk, device_id
    FROM fresh
),
-- The rollups (migration 0010) take the same fresh rows in the same statement, so they stay
-- exactly consistent with events. Each upsert is ordered by its key so concurrent commits lock
-- rollup rows in the same order. rollups_rebuild_*.sql computes the same groups from events.
rollup_counts_added AS (
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
          FROM fresh) f
    GROUP BY app_id, hour, category, has_media, GROUPING SETS ((app_version, platform, campaign, variant), (app_version))
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, has_media) DO UPDATE SET
        delivered = t.delivered + EXCLUDED.delivered, sent = t.sent + EXCLUDED.sent,
        media_requested = t.media_requested + EXCLUDED.media_requested, opens = t.opens + EXCLUDED.opens,
        dismissals = t.dismissals + EXCLUDED.dismissals, actions = t.actions + EXCLUDED.actions,
        replies = t.replies + EXCLUDED.replies
), rollup_actions_added AS (
    INSERT INTO rollup_actions AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, action, n)
    SELECT app_id, CASE GROUPING(hour, day, app_version, platform, campaign, variant) WHEN 16 THEN 0 WHEN 31 THEN 2 ELSE 3 END::smallint,
        coalesce(hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
        action_identifier, count(*)
    FROM (SELECT app_id, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
                 coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, action_identifier
          FROM fresh
          WHERE type = 'response' AND action_identifier NOT IN
              ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) f
    GROUP BY app_id, category, action_identifier, GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour), (day))
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, action) DO UPDATE SET
        n = t.n + EXCLUDED.n
), rollup_histograms_added AS (
    INSERT INTO rollup_histograms AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin, n)
    SELECT app_id, CASE GROUPING(hour, day, app_version, platform, campaign, variant) WHEN 16 THEN 0 WHEN 31 THEN 2 ELSE 3 END::smallint,
        coalesce(hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
        metric, bin, count(*)
    FROM (SELECT app_id, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
                 coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, m.metric, m.bin
          FROM fresh
          CROSS JOIN LATERAL (VALUES
              (1::smallint, CASE WHEN user_text_length IS NOT NULL THEN tapwire_reply_bin(user_text_length) END),
              (2::smallint, CASE WHEN delivered_at IS NOT NULL THEN tapwire_latency_bin(event_time, delivered_at) END)) m (metric, bin)
          WHERE type = 'response' AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier'
            AND m.bin IS NOT NULL
            AND (m.metric = 2 OR action_identifier <> 'com.apple.UNNotificationDefaultActionIdentifier')) f
    GROUP BY app_id, category, metric, bin, GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour), (day))
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin) DO UPDATE SET
        n = t.n + EXCLUDED.n
)
SELECT seq FROM fresh
