-- Report rollups, part 5: per UTC day, category and app version, delivered and dismissals in each
-- of the day's 96 quarter hours; a row for every day, category and version with events. See
-- 10_rollup_totals.sql.
INSERT INTO rollup_dismiss_base AS t (app_id, day, category, app_version, delivered, dismissals)
SELECT k.app_id, k.day, k.category, k.app_version, array_agg(coalesce(c.delivered, 0) ORDER BY q.quarter),
       array_agg(coalesce(c.dismissals, 0) ORDER BY q.quarter)
FROM (SELECT DISTINCT app_id, tapwire_utc_day(event_time) AS day, category, app_version FROM staging_events) k
CROSS JOIN generate_series(0, 95) AS q(quarter)
LEFT JOIN (
    SELECT app_id, tapwire_utc_day(event_time) AS day, floor(date_part('epoch', event_time - tapwire_utc_day(event_time)) / 900)::integer AS quarter,
           category, app_version,
           count(*) FILTER (WHERE type = 'delivered') AS delivered,
           count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDismissActionIdentifier') AS dismissals
    FROM staging_events
    GROUP BY 1, 2, 3, 4, 5
) c ON c.app_id = k.app_id AND c.day = k.day AND c.quarter = q.quarter AND c.category = k.category AND c.app_version = k.app_version
GROUP BY k.app_id, k.day, k.category, k.app_version
ORDER BY 1, 2, 3, 4
ON CONFLICT (app_id, day, category, app_version) DO UPDATE SET
    delivered = ARRAY(SELECT a + b FROM unnest(t.delivered, EXCLUDED.delivered) AS u(a, b)),
    dismissals = ARRAY(SELECT a + b FROM unnest(t.dismissals, EXCLUDED.dismissals) AS u(a, b))
