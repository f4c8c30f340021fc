-- The parts of [$2, $3) that report_counts.sql (time zone $4) or report_actions.sql and the
-- other totals ($4 = 'UTC': they need no local days) do not read from hourly rollups: every UTC
-- hour cut by a range edge or by a local midnight, split into its quarter hours (a quarter hour
-- never straddles a local midnight: every zone's offset is a multiple of 15 minutes). Returned
-- as merged ranges [lo, hi) in µs since 1970, each inside one local day (`day`, YYYY-MM-DD):
-- from_quarters when the range is whole quarter hours where the quarter-hour grain of app $1 is
-- complete (rollup_quarter_coverage, migration 0100; an app without a row is complete), read
-- from grain 5 (report_quarter_*.sql); otherwise (the minutes of an edge off the quarter hour,
-- or quarters before the grain is complete) the report reads the range's events through
-- TapwireCore.RollupDeltas (TapwireStore/ReportEdgeEvents.swift).
WITH coverage AS (
    SELECT coalesce((SELECT complete_from FROM rollup_quarter_coverage WHERE app_id = $1::bigint),
                    '-infinity'::timestamptz) AS complete_from
), hours AS (
    SELECT h FROM generate_series(tapwire_hour($2::timestamptz), $3::timestamptz - interval '1 microsecond', interval '1 hour') h
    WHERE NOT (h >= $2::timestamptz AND h + interval '1 hour' <= $3::timestamptz
        AND (h AT TIME ZONE $4::text)::date = ((h + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $4::text)::date)
), quarters AS (
    SELECT q, greatest(q, $2::timestamptz) AS lo, least(q + interval '15 minutes', $3::timestamptz) AS hi
    FROM hours, generate_series(h, h + interval '45 minutes', interval '15 minutes') q
    WHERE q < $3::timestamptz AND q + interval '15 minutes' > $2::timestamptz
), classified AS (
    SELECT q, lo, hi,
        lo = q AND hi = q + interval '15 minutes' AND q >= (SELECT complete_from FROM coverage)
            AND (q AT TIME ZONE $4::text)::date = ((q + interval '15 minutes' - interval '1 microsecond') AT TIME ZONE $4::text)::date
            AS from_quarters,
        (lo AT TIME ZONE $4::text)::date AS day
    FROM quarters
), islands AS (
    SELECT lo, hi, from_quarters, day,
        q - (row_number() OVER (PARTITION BY from_quarters, day ORDER BY q)) * interval '15 minutes' AS island
    FROM classified
)
SELECT (extract(epoch FROM min(lo)) * 1000000)::bigint AS lo_us, (extract(epoch FROM max(hi)) * 1000000)::bigint AS hi_us,
    from_quarters, to_char(day, 'YYYY-MM-DD') AS day
FROM islands
GROUP BY from_quarters, day, island
ORDER BY 1
