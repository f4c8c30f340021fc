-- Mismatch detection input: one app's usage summed by event shape over a window split by the
-- caller into whole UTC days [$3, $4) read from the daily rollup, and the hours around them,
-- [$2, $3) and [$4, $5), read from the hourly one ($3 = $4 when the window holds no whole day).
-- Each part is a range scan of a primary key; raw events are never read. Times come back as
-- microseconds since 1970.
WITH usage AS (
    SELECT app_version, platform, type, category, action, category_registered, event_count, first_seen, last_seen
    FROM mismatch_usage_hourly
    WHERE app_id = $1::bigint AND bucket >= $2::timestamptz AND bucket < $3::timestamptz
    UNION ALL
    SELECT app_version, platform, type, category, action, category_registered, event_count, first_seen, last_seen
    FROM mismatch_usage_daily
    WHERE app_id = $1::bigint AND day >= ($3::timestamptz AT TIME ZONE 'UTC')::date
      AND day < ($4::timestamptz AT TIME ZONE 'UTC')::date
    UNION ALL
    SELECT app_version, platform, type, category, action, category_registered, event_count, first_seen, last_seen
    FROM mismatch_usage_hourly
    WHERE app_id = $1::bigint AND bucket >= $4::timestamptz AND bucket < $5::timestamptz
)
SELECT app_version, platform, type::text, category, action, category_registered,
       sum(event_count)::bigint AS event_count,
       (extract(epoch FROM min(first_seen)) * 1000000)::bigint AS first_seen_us,
       (extract(epoch FROM max(last_seen)) * 1000000)::bigint AS last_seen_us
FROM usage
GROUP BY app_version, platform, type, category, action, category_registered
