-- Mismatch detection's usage rollups (migration 0020), recomputed from the events a rebuild
-- staged (staging_events, see README.md): grouped once by hour and event shape, then upserted
-- into the hourly and the daily rollup, each in key order.
WITH shapes AS (
    SELECT app_id, date_trunc('hour', event_time, 'UTC') AS bucket, app_version, platform, type, category,
           coalesce(action_identifier, '') AS action,
           CASE category_registered WHEN true THEN 1 WHEN false THEN 0 ELSE -1 END AS category_registered,
           count(*) AS event_count, min(event_time) AS first_seen, max(event_time) AS last_seen
    FROM staging_events
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
), hourly AS (
    INSERT INTO mismatch_usage_hourly AS u (app_id, bucket, app_version, platform, type, category, action,
                                            category_registered, event_count, first_seen, last_seen)
    SELECT app_id, bucket, app_version, platform, type, category, action, category_registered,
           event_count, first_seen, last_seen
    FROM shapes
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
    ON CONFLICT (app_id, bucket, app_version, platform, type, category, action, category_registered)
    DO UPDATE SET event_count = u.event_count + EXCLUDED.event_count,
                  first_seen = LEAST(u.first_seen, EXCLUDED.first_seen),
                  last_seen = GREATEST(u.last_seen, EXCLUDED.last_seen)
)
INSERT INTO mismatch_usage_daily AS u (app_id, day, app_version, platform, type, category, action,
                                       category_registered, event_count, first_seen, last_seen)
SELECT app_id, (bucket AT TIME ZONE 'UTC')::date, app_version, platform, type, category, action,
       category_registered, sum(event_count), min(first_seen), max(last_seen)
FROM shapes
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
ON CONFLICT (app_id, day, app_version, platform, type, category, action, category_registered)
DO UPDATE SET event_count = u.event_count + EXCLUDED.event_count,
              first_seen = LEAST(u.first_seen, EXCLUDED.first_seen),
              last_seen = GREATEST(u.last_seen, EXCLUDED.last_seen)
