-- Percentile histograms (metric 1 reply length, 2 time to response) of app $1 over the whole
-- UTC hours inside [$2, $3), by --by group and category: daily and hourly rows as in
-- report_actions.sql (same parameters); the partial hours at the edges come from
-- report_quarter_histograms.sql and the edge minutes (report_edge_ranges.sql).
WITH edges AS (
    -- first_day: the first UTC midnight at or after $2; last_day: the last at or before $3.
    SELECT tapwire_utc_day($2::timestamptz + interval '24 hours' - interval '1 microsecond') AS first_day,
           tapwire_utc_day($3::timestamptz) AS last_day
), parts AS (
    -- filtered or grouped: every whole hour, by every dimension
    SELECT CASE $9::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                              WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value, r.category, r.metric, r.bin, r.n
    FROM rollup_histograms r, edges
    WHERE r.app_id = $1::bigint AND $4::smallint = 0 AND r.grain = 0 AND r.hour >= $2::timestamptz AND r.hour + interval '1 hour' <= $3::timestamptz
          AND ($5::text IS NULL OR r.app_version = $5::text) AND ($6::text IS NULL OR r.platform = $6::text)
          AND ($7::text IS NULL OR r.campaign = $7::text) AND ($8::text IS NULL OR r.variant = $8::text)
    UNION ALL
    -- unfiltered: the whole hours before the first whole UTC day
    SELECT CASE $9::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                              WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value, r.category, r.metric, r.bin, r.n
    FROM rollup_histograms r, edges
    WHERE r.app_id = $1::bigint AND $4::smallint = 2 AND r.grain = 2 AND r.hour >= $2::timestamptz AND r.hour < least(edges.first_day, $3::timestamptz)
          AND r.hour + interval '1 hour' <= $3::timestamptz
          AND ($5::text IS NULL OR r.app_version = $5::text) AND ($6::text IS NULL OR r.platform = $6::text)
          AND ($7::text IS NULL OR r.campaign = $7::text) AND ($8::text IS NULL OR r.variant = $8::text)
    UNION ALL
    -- the whole UTC days, one row per day
    SELECT CASE $9::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                              WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value, r.category, r.metric, r.bin, r.n
    FROM rollup_histograms r, edges
    WHERE r.app_id = $1::bigint AND $4::smallint = 2 AND r.grain = 3 AND r.hour >= edges.first_day AND r.hour + interval '24 hours' <= $3::timestamptz
          AND ($5::text IS NULL OR r.app_version = $5::text) AND ($6::text IS NULL OR r.platform = $6::text)
          AND ($7::text IS NULL OR r.campaign = $7::text) AND ($8::text IS NULL OR r.variant = $8::text)
    UNION ALL
    -- the whole hours after the last whole UTC day
    SELECT CASE $9::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                              WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value, r.category, r.metric, r.bin, r.n
    FROM rollup_histograms r, edges
    WHERE r.app_id = $1::bigint AND $4::smallint = 2 AND r.grain = 2 AND r.hour >= greatest(edges.last_day, edges.first_day, $2::timestamptz)
          AND r.hour + interval '1 hour' <= $3::timestamptz
          AND ($5::text IS NULL OR r.app_version = $5::text) AND ($6::text IS NULL OR r.platform = $6::text)
          AND ($7::text IS NULL OR r.campaign = $7::text) AND ($8::text IS NULL OR r.variant = $8::text)
)
SELECT group_value, category, metric, bin, sum(n)::bigint AS count
FROM parts
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4
