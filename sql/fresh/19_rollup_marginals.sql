-- Report rollups, part 8: daily counts per category and rich/text-only by each single dimension
-- (the names of TapwireCore/ReportDimension.swift; the OS as its major version); no row where
-- delivered, sent, opens and registered actions are all 0. See 10_rollup_totals.sql.
INSERT INTO rollup_marginals AS t (app_id, day, dimension, value, category, has_media, delivered, sent, opens, actions)
SELECT e.app_id, tapwire_utc_day(e.event_time), d.dimension, d.value, e.category, e.has_media,
    count(*) FILTER (WHERE e.type = 'delivered'),
    count(*) FILTER (WHERE e.type = 'sent'),
    count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier = 'com.apple.UNNotificationDefaultActionIdentifier'),
    count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier NOT IN
        ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier'))
FROM staging_events e
CROSS JOIN LATERAL (VALUES ('appVersion', e.app_version), ('platform', e.platform), ('campaign', coalesce(e.campaign, '')),
                           ('variant', coalesce(e.variant, '')), ('os', split_part(coalesce(e.os_version, ''), '.', 1))) AS d(dimension, value)
GROUP BY 1, 2, 3, 4, 5, 6
HAVING count(*) FILTER (WHERE e.type IN ('delivered', 'sent') OR (e.type = 'response'
                              AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier')) > 0
ORDER BY 1, 2, 3, 4, 5, 6
ON CONFLICT (app_id, day, dimension, value, category, has_media) DO UPDATE SET
    delivered = t.delivered + EXCLUDED.delivered, sent = t.sent + EXCLUDED.sent, opens = t.opens + EXCLUDED.opens,
    actions = t.actions + EXCLUDED.actions
