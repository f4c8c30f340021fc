-- Report rollups, part 6: per UTC day, category and app version, delivered and dismissals as
-- running sums at the day's 97 quarter-hour edges (as 15_rollup_trend.sql); a row for every day,
-- category and version with events.
INSERT INTO rollup_dismiss_quarters AS t (app_id, day, category, app_version, delivered_running, dismissals_running)
SELECT app_id, day, category, app_version, array_agg(delivered ORDER BY edge), array_agg(dismissals ORDER BY edge)
FROM (SELECT k.app_id, k.day, k.category, k.app_version, e.edge,
             coalesce(sum(c.delivered) FILTER (WHERE c.quarter < e.edge), 0)::bigint AS delivered,
             coalesce(sum(c.dismissals) FILTER (WHERE c.quarter < e.edge), 0)::bigint AS dismissals
      FROM (SELECT DISTINCT app_id, tapwire_utc_day(event_time) AS day, category, app_version FROM staging_events) k
      CROSS JOIN generate_series(0, 96) AS e(edge)
      LEFT JOIN (SELECT app_id, tapwire_utc_day(event_time) AS day, category, app_version,
                        floor(date_part('epoch', event_time - tapwire_utc_day(event_time)) / 900)::integer AS quarter,
                        count(*) FILTER (WHERE type = 'delivered') AS delivered,
                        count(*) FILTER (WHERE type = 'response'
                                           AND action_identifier = 'com.apple.UNNotificationDismissActionIdentifier') AS dismissals
                 FROM staging_events
                 GROUP BY 1, 2, 3, 4, 5) c
        ON c.app_id = k.app_id AND c.day = k.day AND c.category = k.category AND c.app_version = k.app_version
      GROUP BY k.app_id, k.day, k.category, k.app_version, e.edge) r
GROUP BY app_id, day, category, app_version
ORDER BY 1, 2, 3, 4
ON CONFLICT (app_id, day, category, app_version) DO UPDATE SET
    delivered_running = ARRAY(SELECT a + b FROM unnest(t.delivered_running, EXCLUDED.delivered_running) AS u(a, b)),
    dismissals_running = ARRAY(SELECT a + b FROM unnest(t.dismissals_running, EXCLUDED.dismissals_running) AS u(a, b))
