-- `tapwire-bench mismatches`: the usage rollups rebuilt from raw events, grouped as
-- sql/fresh/20_mismatch_usage.sql groups the rows of each commit. A script (several statements).
TRUNCATE mismatch_usage_hourly, mismatch_usage_daily;
INSERT INTO mismatch_usage_hourly (app_id, bucket, app_version, platform, type, category, action,
                                   category_registered, event_count, first_seen, last_seen)
SELECT app_id, date_trunc('hour', event_time, 'UTC'), app_version, platform, type, category,
       coalesce(action_identifier, ''), CASE category_registered WHEN true THEN 1 WHEN false THEN 0 ELSE -1 END,
       count(*), min(event_time), max(event_time)
FROM events WHERE type <> 'conversion' GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO mismatch_usage_daily (app_id, day, app_version, platform, type, category, action,
                                  category_registered, event_count, first_seen, last_seen)
SELECT app_id, (bucket AT TIME ZONE 'UTC')::date, app_version, platform, type, category, action,
       category_registered, sum(event_count), min(first_seen), max(last_seen)
FROM mismatch_usage_hourly GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
