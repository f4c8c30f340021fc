-- From which instant app $1's quarter-hour rows are complete (migration 0100, carried into the
-- rollups of 0150), in µs since 1970; NULL when they are complete throughout (an app created
-- after migration 0100). Before it, a report reads the parts of the days its edges cut from events.
-- And the retention horizon (migration 0031; NULL before any partition is dropped): before it the
-- conversion rollups keep counts whose rows are gone, so a cut day there is read from its rows.
SELECT (SELECT (extract(epoch FROM complete_from) * 1000000)::bigint FROM rollup_quarter_coverage WHERE app_id = $1::bigint)
           AS complete_from_us,
       (extract(epoch FROM tapwire_retention_horizon()) * 1000000)::bigint AS horizon_us
