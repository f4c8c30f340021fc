-- Report rollup rows of one app, every table.
SELECT (SELECT count(*) FROM rollup_totals WHERE app_id = $1::bigint) + (SELECT count(*) FROM rollup_total_actions WHERE app_id = $1::bigint)
     + (SELECT count(*) FROM rollup_total_histograms WHERE app_id = $1::bigint) + (SELECT count(*) FROM rollup_trend WHERE app_id = $1::bigint)
     + (SELECT count(*) FROM rollup_dismiss_base WHERE app_id = $1::bigint) + (SELECT count(*) FROM rollup_strata WHERE app_id = $1::bigint)
     + (SELECT count(*) FROM rollup_uplift_days WHERE app_id = $1::bigint) + (SELECT count(*) FROM rollup_marginals WHERE app_id = $1::bigint)
