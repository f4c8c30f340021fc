-- The strata of the adjusted difference for app $1 from the quarter-hour grain (5, migration
-- 0100) over the ranges [$2[i], $3[i]) (the from_quarters ranges of
-- report_edge_ranges.sql in UTC), with the columns of report_strata.sql (day: the UTC day, days
-- since 1970-01-01). Filters $4-$7 (NULL = any); $8 the --by dimension.
SELECT CASE $8::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                     WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
    floor(extract(epoch FROM r.hour) / 86400)::bigint AS day,
    r.category, r.app_version, r.platform, r.campaign, r.has_media,
    sum(r.delivered)::bigint AS delivered, sum(r.opens)::bigint AS opens, sum(r.actions)::bigint AS actions
FROM unnest($2::timestamptz[], $3::timestamptz[]) AS q (lo, hi)
-- One index range scan per range: OFFSET 0 keeps the subquery apart, so no plan (a generic
-- one of the prepared statement, which knows neither the ranges nor the grain) joins the
-- ranges with a scan of the whole table instead.
CROSS JOIN LATERAL (
    SELECT * FROM rollup_counts r
    WHERE r.app_id = $1::bigint AND r.grain = 5 AND r.hour >= q.lo AND r.hour < q.hi
    OFFSET 0) r
WHERE ($4::text IS NULL OR r.app_version = $4::text) AND ($5::text IS NULL OR r.platform = $5::text)
  AND ($6::text IS NULL OR r.campaign = $6::text) AND ($7::text IS NULL OR r.variant = $7::text)
GROUP BY 1, 2, 3, 4, 5, 6, 7
