-- Mismatch detection input: one app's usage summed by event shape over the hours [$2, $3) of the
-- hourly rollup (the caller rounds $2 down to its hour). One range scan of its primary key; raw
-- events are never read. Whole days come from the hours too: the daily rollup that held them is
-- gone (migration 0330; docs/benchmarks.md, "The mismatch usage without its daily table: tried
-- and dropped (branch mismatch12)"). Times come back as microseconds since 1970.
SELECT app_version, platform, type::text, category, action, category_registered,
       sum(event_count)::bigint AS event_count,
       (extract(epoch FROM min(first_seen)) * 1000000)::bigint AS first_seen_us,
       (extract(epoch FROM max(last_seen)) * 1000000)::bigint AS last_seen_us
FROM mismatch_usage_hourly
WHERE app_id = $1::bigint AND bucket >= $2::timestamptz AND bucket < $3::timestamptz
GROUP BY app_version, platform, type, category, action, category_registered
