-- Report rollups, part 4: per UTC day and category, delivered and engaged (opens and registered
-- actions) as running sums at the day's 97 quarter-hour edges: element q + 1 counts quarters 0 to
-- q - 1; no row for a day and category without either. See 10_rollup_totals.sql.
INSERT INTO rollup_trend AS t (app_id, day, category, delivered_running, engaged_running)
SELECT app_id, day, category, array_agg(delivered ORDER BY edge), array_agg(engaged ORDER BY edge)
FROM (SELECT k.app_id, k.day, k.category, e.edge,
             coalesce(sum(c.delivered) FILTER (WHERE c.quarter < e.edge), 0)::bigint AS delivered,
             coalesce(sum(c.engaged) FILTER (WHERE c.quarter < e.edge), 0)::bigint AS engaged
      FROM (SELECT app_id, tapwire_utc_day(event_time) AS day, category
            FROM staging_events
            GROUP BY 1, 2, 3
            HAVING count(*) FILTER (WHERE type = 'delivered' OR (type = 'response'
                                          AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier')) > 0) k
      CROSS JOIN generate_series(0, 96) AS e(edge)
      LEFT JOIN (SELECT app_id, tapwire_utc_day(event_time) AS day, category,
                        floor(date_part('epoch', event_time - tapwire_utc_day(event_time)) / 900)::integer AS quarter,
                        count(*) FILTER (WHERE type = 'delivered') AS delivered,
                        count(*) FILTER (WHERE type = 'response'
                                           AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier') AS engaged
                 FROM staging_events
                 GROUP BY 1, 2, 3, 4) c ON c.app_id = k.app_id AND c.day = k.day AND c.category = k.category
      GROUP BY k.app_id, k.day, k.category, e.edge) r
GROUP BY app_id, day, category
ORDER BY 1, 2, 3
ON CONFLICT (app_id, day, category) DO UPDATE SET
    delivered_running = ARRAY(SELECT a + b FROM unnest(t.delivered_running, EXCLUDED.delivered_running) AS u(a, b)),
    engaged_running = ARRAY(SELECT a + b FROM unnest(t.engaged_running, EXCLUDED.engaged_running) AS u(a, b))
