-- The strata of the adjusted rich vs text-only difference for app $1 over the whole UTC hours
-- inside [$2, $3): delivered, opens and registered actions (engaged, in RollupDeltas.engaged) by --by group, UTC day,
-- category, app version, platform, campaign and rich/text-only. The report adds the days up for
-- its figures, and looks at them day by day for the anytime-valid interval (docs/reports.md).
-- `day` is the UTC day as a number (days since 1970-01-01), whatever the session's time zone.
-- Like report_actions.sql, the sums need no local days, only exact edges: $4 = 4 reads the daily
-- rows (grain 4) of the whole UTC days inside the range and the hourly rows (grain 0) of the
-- hours around them; $4 = 0 (a variant filter or --by variant, which grain 4 does not keep) reads
-- grain 0 for every hour. The partial hours at the edges come from report_quarter_strata.sql and the edge minutes.
-- $5-$8 filters (app version, platform, campaign, variant; NULL = any); $9 the --by dimension.
-- Rows come in no particular order, and a key may come twice (a day's grain 0 hours beside
-- another day's): the report adds rows with the same key.
WITH edges AS (
    -- first_day: the first UTC midnight at or after $2; last_day: the last at or before $3.
    -- Read as scalar subqueries below, so they bound the primary key's range on hour (a join
    -- with this row would make PostgreSQL scan every hour of grain 0).
    SELECT tapwire_utc_day($2::timestamptz + interval '24 hours' - interval '1 microsecond') AS first_day,
           tapwire_utc_day($3::timestamptz) AS last_day
), hours AS (
    -- a variant filter or --by variant: every whole hour from grain 0
    SELECT r.hour, r.app_version, r.platform, r.campaign, r.variant, r.category, r.has_media, r.delivered, r.opens, r.actions
    FROM rollup_counts r
    WHERE r.app_id = $1::bigint AND $4::smallint = 0 AND r.grain = 0
      AND r.hour >= $2::timestamptz AND r.hour + interval '1 hour' <= $3::timestamptz
    UNION ALL
    -- otherwise: the whole hours before the first whole UTC day, from grain 0
    SELECT r.hour, r.app_version, r.platform, r.campaign, r.variant, r.category, r.has_media, r.delivered, r.opens, r.actions
    FROM rollup_counts r
    WHERE r.app_id = $1::bigint AND $4::smallint = 4 AND r.grain = 0
      AND r.hour >= $2::timestamptz AND r.hour < least((SELECT first_day FROM edges), $3::timestamptz)
      AND r.hour + interval '1 hour' <= $3::timestamptz
    UNION ALL
    -- and the whole hours after the last whole UTC day, from grain 0
    SELECT r.hour, r.app_version, r.platform, r.campaign, r.variant, r.category, r.has_media, r.delivered, r.opens, r.actions
    FROM rollup_counts r
    WHERE r.app_id = $1::bigint AND $4::smallint = 4 AND r.grain = 0
      AND r.hour >= greatest((SELECT last_day FROM edges), (SELECT first_day FROM edges), $2::timestamptz)
      AND r.hour < $3::timestamptz AND r.hour + interval '1 hour' <= $3::timestamptz
)
-- The whole UTC days (grain 4): one row per day and stratum already (variant is '' there), so
-- they pass through without an aggregate, which would cost more than reading them.
SELECT CASE $9::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                     WHEN 'campaign' THEN r.campaign ELSE '' END AS group_value,
    (date_part('epoch', r.hour)::bigint / 86400) AS day,
    r.category, r.app_version, r.platform, r.campaign, r.has_media, r.delivered, r.opens, r.actions
FROM rollup_counts r
WHERE r.app_id = $1::bigint AND $4::smallint = 4 AND r.grain = 4
  AND r.hour >= (SELECT first_day FROM edges)
  AND r.hour < $3::timestamptz AND r.hour + interval '24 hours' <= $3::timestamptz
  AND ($5::text IS NULL OR r.app_version = $5::text) AND ($6::text IS NULL OR r.platform = $6::text)
  AND ($7::text IS NULL OR r.campaign = $7::text) AND ($8::text IS NULL OR r.variant = $8::text)
UNION ALL
-- The hours from grain 0, added up per day and stratum.
SELECT CASE $9::text WHEN 'appVersion' THEN app_version WHEN 'platform' THEN platform
                     WHEN 'campaign' THEN campaign WHEN 'variant' THEN variant ELSE '' END AS group_value,
    (date_part('epoch', hour)::bigint / 86400) AS day,
    category, app_version, platform, campaign, has_media, sum(delivered)::bigint AS delivered, sum(opens)::bigint AS opens,
    sum(actions)::bigint AS actions
FROM hours
-- The filters, once for every branch (PostgreSQL pushes them into each).
WHERE ($5::text IS NULL OR app_version = $5::text) AND ($6::text IS NULL OR platform = $6::text)
  AND ($7::text IS NULL OR campaign = $7::text) AND ($8::text IS NULL OR variant = $8::text)
GROUP BY 1, 2, 3, 4, 5, 6, 7
