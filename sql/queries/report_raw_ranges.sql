-- The parts of [$1, $2) a report reads from events instead of the rollups, as merged ranges
-- [lo, hi): every UTC hour that is cut by a range edge or by a local midnight of time zone $3
-- (in UTC+05:30 every local midnight falls mid-hour), or every hour when $4 is true.
WITH hours AS (
    SELECT h FROM generate_series(tapwire_hour($1::timestamptz), $2::timestamptz - interval '1 microsecond', interval '1 hour') h
    WHERE $4::boolean OR NOT (h >= $1::timestamptz AND h + interval '1 hour' <= $2::timestamptz
        AND (h AT TIME ZONE $3::text)::date = ((h + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $3::text)::date)
), islands AS (
    SELECT h, h - (row_number() OVER (ORDER BY h)) * interval '1 hour' AS island FROM hours
)
SELECT (extract(epoch FROM greatest(min(h), $1::timestamptz)) * 1000000)::bigint AS lo_us,
       (extract(epoch FROM least(max(h) + interval '1 hour', $2::timestamptz)) * 1000000)::bigint AS hi_us
FROM islands
GROUP BY island
ORDER BY 1
