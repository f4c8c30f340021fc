-- Engagement counts of app $1 from the quarter-hour grain (5, migration 0100) over the ranges
-- [$2[i], $3[i]) (µs since 1970: the from_quarters ranges of report_edge_ranges.sql, the quarter
-- hours of the hours report_counts.sql leaves out), with the columns of report_counts.sql; the
-- local day in time zone $4 (a quarter hour lies in one). Filters $5-$8 (app version,
-- platform, campaign, variant; NULL = any); $9 the --by dimension.
SELECT CASE $9::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                     WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
    r.app_version, to_char((r.hour AT TIME ZONE $4::text)::date, 'YYYY-MM-DD') AS day, r.category, r.has_media,
    sum(r.delivered)::bigint AS delivered, sum(r.sent)::bigint AS sent, sum(r.media_requested)::bigint AS media_requested,
    sum(r.opens)::bigint AS opens, sum(r.dismissals)::bigint AS dismissals, sum(r.actions)::bigint AS actions,
    sum(r.replies)::bigint AS replies
FROM unnest($2::bigint[], $3::bigint[]) AS q (lo, hi)
JOIN rollup_counts r ON r.app_id = $1::bigint AND r.grain = 5
    AND r.hour >= timestamptz '1970-01-01 00:00:00+00' + q.lo * interval '1 microsecond'
    AND r.hour < timestamptz '1970-01-01 00:00:00+00' + q.hi * interval '1 microsecond'
WHERE ($5::text IS NULL OR r.app_version = $5::text) AND ($6::text IS NULL OR r.platform = $6::text)
  AND ($7::text IS NULL OR r.campaign = $7::text) AND ($8::text IS NULL OR r.variant = $8::text)
GROUP BY 1, 2, 3, 4, 5
