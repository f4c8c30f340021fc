-- The dismiss base of app $1, per category: delivered and dismissals summed over the pairs $2 of a
-- category and an app version whose manifest makes dismissals measurable, over the blocks of days
-- ($3 grains, $4 first midnights) that cover the range's whole UTC days (rollup_dismiss_base) and
-- the runs [$5[j], $6[j]) of quarter hours of the days its edges cut, each within one UTC day
-- (rollup_dismiss_quarters' running sums; TapwireReport/ReportPlan.swift). Each pair is spelled as
-- the bytes of its category, ':', the category and the version (an encoding no two pairs share):
-- the test is a hashed lookup per row, where the pairs joined as a table cost twice the rows' own
-- reading (docs/reports.md). When every category is measurable in every version (a real app's
-- manifests mostly register the same categories in every version) the reader asks
-- report_dismiss_grid_days.sql and report_dismiss_grid_quarters.sql instead, which test only the
-- version. `app_version` is the first of the versions summed: every one of them is measurable,
-- which is all the report asks of a row's version. A row per category, not per pair: at a real
-- app's 40 versions that was most of this statement's time and of the rows the report decoded.
-- Each run's day and quarters are computed once per run (`OFFSET 0`, as in report_trend.sql).
SELECT category, min(app_version) AS app_version, sum(delivered)::bigint AS delivered, sum(dismissals)::bigint AS dismissals
FROM (SELECT d.category, d.app_version, d.delivered, d.dismissals
      FROM unnest($3::smallint[], $4::timestamptz[]) AS b(grain, bucket)
      JOIN rollup_dismiss_base d ON d.app_id = $1::bigint AND d.grain = b.grain AND d.bucket = b.bucket
      UNION ALL
      SELECT q.category, q.app_version,
             q.delivered_running[r.hi_q + 1] - q.delivered_running[r.lo_q + 1],
             q.dismissals_running[r.hi_q + 1] - q.dismissals_running[r.lo_q + 1]
      FROM (SELECT tapwire_utc_day(lo) AS utc_day, tapwire_quarter_of_day(lo) AS lo_q,
                   tapwire_quarter_of_day(hi - interval '1 microsecond') + 1 AS hi_q
            FROM unnest($5::timestamptz[], $6::timestamptz[]) AS u(lo, hi) OFFSET 0) r
      JOIN rollup_dismiss_quarters q ON q.app_id = $1::bigint AND q.day = r.utc_day) d
WHERE octet_length(category) || ':' || category || app_version = ANY ($2::text[])
GROUP BY 1
