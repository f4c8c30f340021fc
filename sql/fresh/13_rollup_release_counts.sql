-- Release-regression rollups (migration 0080), part 1: per UTC day, category, app version and
-- platform, an element per hour of the day (1-based: element h + 1 is hour h) of deliveries,
-- opens, dismissals and replies (responses with a registered action that carried a reply
-- length), over every campaign, variant and rich/text-only. Computed here from the staged events
-- directly; the fold derives the same rows in TapwireCore.RollupDeltas.
INSERT INTO rollup_release_counts AS t (app_id, day, category, app_version, platform, delivered, opens, dismissals, replies)
SELECT k.app_id, k.day, k.category, k.app_version, k.platform,
       array_agg(coalesce(c.delivered, 0) ORDER BY h.hour), array_agg(coalesce(c.opens, 0) ORDER BY h.hour),
       array_agg(coalesce(c.dismissals, 0) ORDER BY h.hour), array_agg(coalesce(c.replies, 0) ORDER BY h.hour)
FROM (SELECT DISTINCT app_id, tapwire_utc_day(event_time) AS day, category, app_version, platform FROM staging_events) k
CROSS JOIN generate_series(0, 23) AS h(hour)
LEFT JOIN (
    SELECT app_id, tapwire_utc_day(event_time) AS day, date_part('hour', event_time AT TIME ZONE 'UTC')::integer AS hour,
           category, app_version, platform,
           count(*) FILTER (WHERE type = 'delivered') AS delivered,
           count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDefaultActionIdentifier') AS opens,
           count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDismissActionIdentifier') AS dismissals,
           count(*) FILTER (WHERE type = 'response' AND user_text_length IS NOT NULL AND action_identifier NOT IN
               ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) AS replies
    FROM staging_events
    GROUP BY 1, 2, 3, 4, 5, 6
) c ON c.app_id = k.app_id AND c.day = k.day AND c.hour = h.hour AND c.category = k.category
   AND c.app_version = k.app_version AND c.platform = k.platform
GROUP BY k.app_id, k.day, k.category, k.app_version, k.platform
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT (app_id, day, category, app_version, platform) DO UPDATE SET
    delivered = ARRAY(SELECT a + b FROM unnest(t.delivered, EXCLUDED.delivered) AS u(a, b)),
    opens = ARRAY(SELECT a + b FROM unnest(t.opens, EXCLUDED.opens) AS u(a, b)),
    dismissals = ARRAY(SELECT a + b FROM unnest(t.dismissals, EXCLUDED.dismissals) AS u(a, b)),
    replies = ARRAY(SELECT a + b FROM unnest(t.replies, EXCLUDED.replies) AS u(a, b))
