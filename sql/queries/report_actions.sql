-- Count per registered action of app $1 over the whole UTC hours inside [$2, $3), by --by
-- group and category. Totals need no local days, only exact edges: unfiltered reports ($4 = 2)
-- read the daily rows (grain 3) of the UTC days inside the range and the hourly rows (grain 2)
-- of the rest; filtered or grouped ones ($4 = 0) read hourly rows by every dimension. The
-- partial hours at the edges come from report_raw_actions.sql. $5-$8 filters (NULL = any);
-- $9 the --by dimension ('' for none).
WITH parts AS (
    SELECT CASE $9::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                          WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
        r.category, r.action, r.n
    FROM rollup_actions r
    WHERE r.app_id = $1::bigint
      AND ($5::text IS NULL OR r.app_version = $5::text) AND ($6::text IS NULL OR r.platform = $6::text)
      AND ($7::text IS NULL OR r.campaign = $7::text) AND ($8::text IS NULL OR r.variant = $8::text)
      AND (
          -- UTC days inside the range, from the daily rows (unfiltered reports only)…
          ($4::smallint = 2 AND r.grain = 3 AND r.hour >= $2::timestamptz AND r.hour + interval '1 day' <= $3::timestamptz)
          -- …and the other whole hours inside the range from the hourly rows.
          OR (r.grain = $4::smallint AND r.hour >= $2::timestamptz AND r.hour + interval '1 hour' <= $3::timestamptz
              AND NOT ($4::smallint = 2 AND tapwire_utc_day(r.hour) >= $2::timestamptz
                       AND tapwire_utc_day(r.hour) + interval '1 day' <= $3::timestamptz)))
)
SELECT group_value, category, action, sum(n)::bigint
FROM parts
GROUP BY 1, 2, 3
ORDER BY 1, 2, 4 DESC, 3
