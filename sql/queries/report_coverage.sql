-- From which instant app $1's quarter-hour rows are complete (migration 0100, carried into the
-- rollups of 0150), in µs since 1970; no row when they are complete throughout (an app created
-- after migration 0100). Before it, a report reads the parts of the days its edges cut from events.
SELECT (extract(epoch FROM complete_from) * 1000000)::bigint AS complete_from_us
FROM rollup_quarter_coverage
WHERE app_id = $1::bigint
