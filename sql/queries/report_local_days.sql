-- Every local date in time zone $3 that [$1, $2) touches, so a daily series has no gaps, with the
-- instant its midnight falls on (µs since 1970; the first may lie before $1): where the
-- engagement line's days start (TapwireReport/ReportPlan.swift). Every zone's offset is a
-- multiple of 15 minutes, so each midnight is a quarter hour.
SELECT to_char(d, 'YYYY-MM-DD') AS day, (extract(epoch FROM d AT TIME ZONE $3::text) * 1000000)::bigint AS start_us
FROM generate_series(($1::timestamptz AT TIME ZONE $3::text)::date::timestamp,
                     (($2::timestamptz - interval '1 microsecond') AT TIME ZONE $3::text)::date::timestamp,
                     interval '1 day') d
ORDER BY 1
