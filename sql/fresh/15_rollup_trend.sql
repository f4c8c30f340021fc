-- Report rollups, part 4: per UTC day and category, delivered and engaged (opens and registered
-- actions) in each of the day's 96 quarter hours; no row for a day and category without either.
-- See 10_rollup_totals.sql.
INSERT INTO rollup_trend AS t (app_id, day, category, delivered, engaged)
SELECT k.app_id, k.day, k.category, array_agg(coalesce(c.delivered, 0) ORDER BY q.quarter),
       array_agg(coalesce(c.engaged, 0) ORDER BY q.quarter)
FROM (SELECT app_id, tapwire_utc_day(event_time) AS day, category
      FROM staging_events
      GROUP BY 1, 2, 3
      HAVING count(*) FILTER (WHERE type = 'delivered' OR (type = 'response'
                                    AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier')) > 0) k
CROSS JOIN generate_series(0, 95) AS q(quarter)
LEFT JOIN (
    SELECT app_id, tapwire_utc_day(event_time) AS day, floor(date_part('epoch', event_time - tapwire_utc_day(event_time)) / 900)::integer AS quarter,
           category,
           count(*) FILTER (WHERE type = 'delivered') AS delivered,
           count(*) FILTER (WHERE type = 'response' AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier') AS engaged
    FROM staging_events
    GROUP BY 1, 2, 3, 4
) c ON c.app_id = k.app_id AND c.day = k.day AND c.quarter = q.quarter AND c.category = k.category
GROUP BY k.app_id, k.day, k.category
ORDER BY 1, 2, 3
ON CONFLICT (app_id, day, category) DO UPDATE SET
    delivered = ARRAY(SELECT a + b FROM unnest(t.delivered, EXCLUDED.delivered) AS u(a, b)),
    engaged = ARRAY(SELECT a + b FROM unnest(t.engaged, EXCLUDED.engaged) AS u(a, b))
