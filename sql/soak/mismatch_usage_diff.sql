-- Rows of the mismatch usage rollups that differ from a recomputation over the raw events of
-- one app (in either direction), hourly then daily; 0 and 0 when they agree exactly.
WITH raw AS (
    SELECT app_id, date_trunc('hour', event_time, 'UTC') AS bucket, app_version, platform, type, category,
           coalesce(action_identifier, '') AS action,
           (CASE category_registered WHEN true THEN 1 WHEN false THEN 0 ELSE -1 END)::smallint AS category_registered,
           count(*) AS event_count, min(event_time) AS first_seen, max(event_time) AS last_seen
    FROM events WHERE app_id = $1::bigint AND type <> 'conversion'
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
), raw_daily AS (
    SELECT app_id, (bucket AT TIME ZONE 'UTC')::date AS day, app_version, platform, type, category, action, category_registered,
           sum(event_count)::bigint AS event_count, min(first_seen) AS first_seen, max(last_seen) AS last_seen
    FROM raw GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
), hourly AS (
    SELECT app_id, bucket, app_version, platform, type, category, action, category_registered, event_count, first_seen, last_seen
    FROM mismatch_usage_hourly WHERE app_id = $1::bigint
), daily AS (
    SELECT app_id, day, app_version, platform, type, category, action, category_registered, event_count, first_seen, last_seen
    FROM mismatch_usage_daily WHERE app_id = $1::bigint
)
SELECT (SELECT count(*) FROM ((SELECT * FROM raw EXCEPT ALL SELECT * FROM hourly) UNION ALL (SELECT * FROM hourly EXCEPT ALL SELECT * FROM raw)) d),
       (SELECT count(*) FROM ((SELECT * FROM raw_daily EXCEPT ALL SELECT * FROM daily) UNION ALL (SELECT * FROM daily EXCEPT ALL SELECT * FROM raw_daily)) d)
