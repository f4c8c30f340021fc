-- Mismatch detection input: one app's usage rollup summed over [$2, $3), by event shape.
-- $2 is rounded down to its UTC hour (rows are hourly). Reads mismatch_usage by its primary key
-- (app_id, bucket, ...), never the raw events. Times come back as microseconds since 1970.
SELECT app_version, platform, type::text, category, action, category_registered,
       sum(event_count)::bigint AS event_count,
       (extract(epoch FROM min(first_seen)) * 1000000)::bigint AS first_seen_us,
       (extract(epoch FROM max(last_seen)) * 1000000)::bigint AS last_seen_us
FROM mismatch_usage
WHERE app_id = $1::bigint
  AND bucket >= date_trunc('hour', $2::timestamptz, 'UTC')
  AND bucket < $3::timestamptz
GROUP BY app_version, platform, type, category, action, category_registered
