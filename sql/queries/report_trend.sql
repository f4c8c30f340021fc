-- The engagement line of app $1: delivered and engaged by category and run of quarter hours, from
-- the running sums of rollup_trend. Each run [$2[i], $3[i]) lies in one UTC day and starts and
-- ends on a quarter hour (TapwireReport/ReportPlan.swift): its count is two elements of the day's
-- running sums, the one at its end less the one at its start. A row per run (`run`, i) and
-- category, not summed per local day here: the reader adds a local day's runs (one or two a day in
-- a zone whose midnight is off UTC's), and grouping the rows here cost more than reading them
-- (docs/reports.md, "What each report reads, and what it costs"). Each run's day and quarters are
-- computed once per run: `OFFSET 0` keeps the subquery from being pulled up into the join, which
-- otherwise computed them again for every row it returned (a run × every category: a real app's
-- 900 rows against 30 runs; docs/reports.md, "Issue 33's ratio: the engagement line's quarters").
SELECT r.run, t.category,
    t.delivered_running[r.hi_q + 1] - t.delivered_running[r.lo_q + 1] AS delivered,
    t.engaged_running[r.hi_q + 1] - t.engaged_running[r.lo_q + 1] AS engaged
FROM (SELECT tapwire_utc_day(lo) AS utc_day, tapwire_quarter_of_day(lo) AS lo_q,
             tapwire_quarter_of_day(hi - interval '1 microsecond') + 1 AS hi_q, run
      FROM unnest($2::timestamptz[], $3::timestamptz[]) WITH ORDINALITY AS u(lo, hi, run) OFFSET 0) r
JOIN rollup_trend t ON t.app_id = $1::bigint AND t.day = r.utc_day
