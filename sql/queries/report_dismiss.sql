-- The dismiss base of app $1, per category: delivered and dismissals summed over the category's
-- app versions whose manifest makes dismissals measurable, the pairs ($2[$4[i]], $3[$5[i]]) (the
-- categories and versions named once, the pairs as their positions), over the blocks of days ($6
-- grains, $7 first midnights) that cover the range's whole UTC days (rollup_dismiss_base) and
-- the runs [$8[j], $9[j]) of quarter hours of the days its edges cut, each within one UTC day
-- (rollup_dismiss_quarters' running sums; TapwireReport/ReportPlan.swift). `app_version` is the
-- first of the versions summed: every one of them is measurable, which is all the report asks
-- of a row's version. A row per category, not per pair: at a real app's 40 versions that was
-- most of this statement's time and of the rows the report decoded (docs/reports.md).
WITH pairs AS MATERIALIZED (
    SELECT DISTINCT ($2::text[])[c] AS category, ($3::text[])[v] AS app_version
    FROM unnest($4::integer[], $5::integer[]) AS p(c, v)
)
SELECT category, min(app_version) AS app_version, sum(delivered)::bigint AS delivered, sum(dismissals)::bigint AS dismissals
FROM (SELECT d.category, d.app_version, d.delivered, d.dismissals
      FROM unnest($6::smallint[], $7::timestamptz[]) AS b(grain, bucket)
      JOIN rollup_dismiss_base d ON d.app_id = $1::bigint AND d.grain = b.grain AND d.bucket = b.bucket
      WHERE (d.category, d.app_version) IN (SELECT category, app_version FROM pairs)
      UNION ALL
      SELECT q.category, q.app_version,
             q.delivered_running[r.hi_q + 1] - q.delivered_running[r.lo_q + 1],
             q.dismissals_running[r.hi_q + 1] - q.dismissals_running[r.lo_q + 1]
      FROM (SELECT tapwire_utc_day(lo) AS utc_day, tapwire_quarter_of_day(lo) AS lo_q,
                   tapwire_quarter_of_day(hi - interval '1 microsecond') + 1 AS hi_q
            FROM unnest($8::timestamptz[], $9::timestamptz[]) AS u(lo, hi)) r
      JOIN rollup_dismiss_quarters q ON q.app_id = $1::bigint AND q.day = r.utc_day
      WHERE (q.category, q.app_version) IN (SELECT category, app_version FROM pairs)) d
GROUP BY 1
