-- Percentile histograms (metric 1 reply length, 2 time to response) of app $1 over [$2, $3)
-- by --by group and category: whole hours from rollup_histograms at grain $5, the other hours
-- come from report_raw_histograms.sql. Parameters as in report_counts.sql.
WITH parts AS (
    SELECT CASE $10::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                          WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
        r.category, r.metric, r.bin, r.n
    FROM rollup_histograms r
    WHERE r.app_id = $1::bigint AND r.grain = $5::smallint
      AND r.hour >= $2::timestamptz AND r.hour + interval '1 hour' <= $3::timestamptz
      AND (r.hour AT TIME ZONE $4::text)::date = ((r.hour + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $4::text)::date
      AND ($6::text IS NULL OR r.app_version = $6::text) AND ($7::text IS NULL OR r.platform = $7::text)
      AND ($8::text IS NULL OR r.campaign = $8::text) AND ($9::text IS NULL OR r.variant = $9::text)
)
SELECT group_value, category, metric, bin, sum(n)::bigint
FROM parts
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4
