-- `tapwire-bench regressions`: release rollup sizes for one app: counts rows, action rows.
SELECT (SELECT count(*) FROM rollup_release_counts WHERE app_id = $1::bigint),
       (SELECT count(*) FROM rollup_release_actions WHERE app_id = $1::bigint)
