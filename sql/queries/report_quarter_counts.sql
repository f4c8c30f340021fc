-- Engagement counts of app $1 from a quarter-hour grain (migration 0100: $5 = 5 by every
-- dimension, 6 by app version only) over the ranges [$2[i], $3[i]) (the from_quarters ranges of
-- report_edge_ranges.sql, the quarter hours of the hours report_counts.sql leaves out), with
-- the columns of report_counts.sql; the local day in time zone $4 is the range's own:
-- report_edge_ranges.sql returns each range inside one local day. So the day is converted once
-- per range and the rows are summed once (summing per quarter hour first, then per day, took
-- twice as long: two aggregates of numeric sums, the second one sorted).
-- Filters $6-$9 (app version, platform, campaign, variant; NULL = any); $10 the --by dimension.
SELECT CASE $10::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                     WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
    r.app_version, to_char(q.day, 'YYYY-MM-DD') AS day, r.category, r.has_media,
    sum(r.delivered)::bigint AS delivered, sum(r.sent)::bigint AS sent, sum(r.media_requested)::bigint AS media_requested,
    sum(r.opens)::bigint AS opens, sum(r.dismissals)::bigint AS dismissals, sum(r.actions)::bigint AS actions,
    sum(r.replies)::bigint AS replies
FROM (SELECT lo, hi, (lo AT TIME ZONE $4::text)::date AS day FROM unnest($2::timestamptz[], $3::timestamptz[]) AS u (lo, hi)) AS q
-- One index range scan per range: OFFSET 0 keeps the subquery apart, so no plan (a generic
-- one of the prepared statement, which knows neither the ranges nor the grain) joins the
-- ranges with a scan of the whole table instead.
CROSS JOIN LATERAL (
    SELECT * FROM rollup_counts r
    WHERE r.app_id = $1::bigint AND r.grain = $5::smallint AND r.hour >= q.lo AND r.hour < q.hi
    OFFSET 0) r
WHERE ($6::text IS NULL OR r.app_version = $6::text) AND ($7::text IS NULL OR r.platform = $7::text)
  AND ($8::text IS NULL OR r.campaign = $8::text) AND ($9::text IS NULL OR r.variant = $9::text)
GROUP BY 1, 2, 3, 4, 5
