-- Report rollups, part 6: the strata of the adjusted rich vs text-only difference, per category,
-- campaign ('' for none), platform and UTC day: delivered and engaged of each side; no row for a
-- stratum without either. See 10_rollup_totals.sql.
INSERT INTO rollup_strata AS t (app_id, day, category, campaign, platform, rich_delivered, rich_engaged, text_delivered, text_engaged)
SELECT app_id, tapwire_utc_day(event_time), category, coalesce(campaign, ''), platform,
    count(*) FILTER (WHERE has_media AND type = 'delivered'),
    count(*) FILTER (WHERE has_media AND type = 'response' AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier'),
    count(*) FILTER (WHERE NOT has_media AND type = 'delivered'),
    count(*) FILTER (WHERE NOT has_media AND type = 'response' AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier')
FROM staging_events
GROUP BY 1, 2, 3, 4, 5
HAVING count(*) FILTER (WHERE type = 'delivered' OR (type = 'response'
                              AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier')) > 0
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT (app_id, day, category, campaign, platform) DO UPDATE SET
    rich_delivered = t.rich_delivered + EXCLUDED.rich_delivered, rich_engaged = t.rich_engaged + EXCLUDED.rich_engaged,
    text_delivered = t.text_delivered + EXCLUDED.text_delivered, text_engaged = t.text_engaged + EXCLUDED.text_engaged
