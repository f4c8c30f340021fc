-- The dismiss base of app $1: delivered and dismissals of the (category, app version) pairs
-- ($2[i], $3[i]) whose manifest makes dismissals measurable, over the runs [$4[j], $5[j]) of
-- rollup_dismiss_base's quarter-hour arrays (each in one UTC day, on quarter hours:
-- TapwireReport/ReportPlan.swift).
WITH pairs AS (
    SELECT DISTINCT category, app_version FROM unnest($2::text[], $3::text[]) AS p(category, app_version)
), runs AS (
    SELECT tapwire_utc_day(lo) AS utc_day, tapwire_quarter_of_day(lo) AS lo_q,
           tapwire_quarter_of_day(hi - interval '1 microsecond') + 1 AS hi_q
    FROM unnest($4::timestamptz[], $5::timestamptz[]) AS u(lo, hi)
)
SELECT d.category, d.app_version,
    sum(tapwire_quarter_sum(d.delivered, r.lo_q, r.hi_q))::bigint AS delivered,
    sum(tapwire_quarter_sum(d.dismissals, r.lo_q, r.hi_q))::bigint AS dismissals
FROM runs r
JOIN rollup_dismiss_base d ON d.app_id = $1::bigint AND d.day = r.utc_day
JOIN pairs p ON p.category = d.category AND p.app_version = d.app_version
GROUP BY 1, 2
