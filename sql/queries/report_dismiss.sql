-- The dismiss base of app $1: delivered and dismissals of the (category, app version) pairs
-- ($2[i], $3[i]) whose manifest makes dismissals measurable, over the blocks of days ($4 grains,
-- $5 first midnights) that cover the range's whole UTC days (rollup_dismiss_base) and the runs
-- [$6[j], $7[j]) of quarter hours of the days its edges cut, each within one UTC day
-- (rollup_dismiss_quarters' running sums; TapwireReport/ReportPlan.swift).
WITH pairs AS MATERIALIZED (
    SELECT DISTINCT category, app_version FROM unnest($2::text[], $3::text[]) AS p(category, app_version)
)
SELECT category, app_version, sum(delivered)::bigint AS delivered, sum(dismissals)::bigint AS dismissals
FROM (SELECT d.category, d.app_version, d.delivered, d.dismissals
      FROM unnest($4::smallint[], $5::timestamptz[]) AS b(grain, bucket)
      JOIN rollup_dismiss_base d ON d.app_id = $1::bigint AND d.grain = b.grain AND d.bucket = b.bucket
      WHERE (d.category, d.app_version) IN (SELECT category, app_version FROM pairs)
      UNION ALL
      SELECT q.category, q.app_version,
             q.delivered_running[r.hi_q + 1] - q.delivered_running[r.lo_q + 1],
             q.dismissals_running[r.hi_q + 1] - q.dismissals_running[r.lo_q + 1]
      FROM (SELECT tapwire_utc_day(lo) AS utc_day, tapwire_quarter_of_day(lo) AS lo_q,
                   tapwire_quarter_of_day(hi - interval '1 microsecond') + 1 AS hi_q
            FROM unnest($6::timestamptz[], $7::timestamptz[]) AS u(lo, hi)) r
      JOIN rollup_dismiss_quarters q ON q.app_id = $1::bigint AND q.day = r.utc_day
      WHERE (q.category, q.app_version) IN (SELECT category, app_version FROM pairs)) d
GROUP BY 1, 2
