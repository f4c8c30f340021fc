-- The engagement line of app $1: delivered and engaged by category and local day, from the running
-- sums of rollup_trend. Each run [$2[i], $3[i]) lies in one UTC day, starts and ends on a quarter
-- hour, and belongs to local day $4[i] (TapwireReport/ReportPlan.swift): its count is two elements
-- of the day's running sums, the one at its end less the one at its start.
SELECT r.day, t.category,
    sum(t.delivered_running[r.hi_q + 1] - t.delivered_running[r.lo_q + 1])::bigint AS delivered,
    sum(t.engaged_running[r.hi_q + 1] - t.engaged_running[r.lo_q + 1])::bigint AS engaged
FROM (SELECT tapwire_utc_day(lo) AS utc_day, tapwire_quarter_of_day(lo) AS lo_q,
             tapwire_quarter_of_day(hi - interval '1 microsecond') + 1 AS hi_q, day
      FROM unnest($2::timestamptz[], $3::timestamptz[], $4::text[]) AS u(lo, hi, day)) r
JOIN rollup_trend t ON t.app_id = $1::bigint AND t.day = r.utc_day
GROUP BY 1, 2
