-- The dismiss base of app $1 over the runs [$3[j], $4[j]) of quarter hours of the days a range's
-- edges cut, each within one UTC day (rollup_dismiss_quarters' running sums), when the measurable
-- pairs are every category of the report's list with every version of $2: per category, the sums
-- of its rows of those versions, as report_dismiss_grid_days.sql gives the whole days'. Each run's
-- day and quarters are computed once per run: `OFFSET 0` keeps the subquery from being pulled up
-- into the join, which otherwise computed them again for every row it returned (as
-- report_trend.sql did; docs/reports.md, "Issue 33's ratio at 2M events").
SELECT q.category, sum(q.delivered_running[r.hi_q + 1] - q.delivered_running[r.lo_q + 1])::bigint AS delivered,
       sum(q.dismissals_running[r.hi_q + 1] - q.dismissals_running[r.lo_q + 1])::bigint AS dismissals
FROM (SELECT tapwire_utc_day(lo) AS utc_day, tapwire_quarter_of_day(lo) AS lo_q,
             tapwire_quarter_of_day(hi - interval '1 microsecond') + 1 AS hi_q
      FROM unnest($3::timestamptz[], $4::timestamptz[]) AS u(lo, hi) OFFSET 0) r
JOIN rollup_dismiss_quarters q ON q.app_id = $1::bigint AND q.day = r.utc_day
WHERE q.app_version = ANY ($2::text[])
GROUP BY 1
