-- Every local date in time zone $3 that [$1, $2) touches, so a daily series has no gaps.
SELECT to_char(d, 'YYYY-MM-DD') AS day
FROM generate_series(($1::timestamptz AT TIME ZONE $3::text)::date::timestamp,
                     (($2::timestamptz - interval '1 microsecond') AT TIME ZONE $3::text)::date::timestamp,
                     interval '1 day') d
ORDER BY 1
