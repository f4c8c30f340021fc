-- Rollup sizes for one app: hourly, daily.
SELECT (SELECT count(*) FROM mismatch_usage_hourly WHERE app_id = $1::bigint),
       (SELECT count(*) FROM mismatch_usage_daily WHERE app_id = $1::bigint)
