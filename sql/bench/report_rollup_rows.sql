-- Rollup rows of one app, all grains.
SELECT (SELECT count(*) FROM rollup_counts WHERE app_id = $1::bigint) + (SELECT count(*) FROM rollup_actions WHERE app_id = $1::bigint)
     + (SELECT count(*) FROM rollup_histograms WHERE app_id = $1::bigint)
