-- Engagement counts of app $1 from rollup_counts, over the whole UTC hours that lie inside
-- [$2, $3) and inside one local day of time zone $4 (hourly grain $5, or the daily grain 4 for a
-- whole UTC day that is one local day): by --by group, app version (for
-- the dismiss base), local day, category and rich/text-only. The other hours of the range come
-- from the quarter-hour grain and the edge minutes over the ranges report_edge_ranges.sql lists; the caller adds the
-- two. Filters $6-$9 (app version, platform, campaign, variant; NULL = any); $10 the --by
-- dimension ('' for none, or appVersion, platform, campaign, variant).
WITH hours AS (
    -- The whole UTC hours of [$2, $3), each with its local day and whether it lies inside that
    -- day: the time zone is converted once per hour here, not twice per rollup row. `inside` is
    -- a column tested by its readers, not a WHERE here: PostgreSQL guesses such a WHERE keeps
    -- 0.5 % of the series (5 hours of 720), then sorts the ~20k rollup rows of a 30-day report
    -- to group them, 2x slower than the hash aggregate it picks when it expects half of them.
    SELECT h AS hour, tapwire_utc_day(h) AS utc_day, (h AT TIME ZONE $4::text)::date AS day,
        (h AT TIME ZONE $4::text)::date = ((h + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $4::text)::date AS inside
    FROM generate_series(date_trunc('hour', $2::timestamptz + interval '1 hour' - interval '1 microsecond', 'UTC'),
                         $3::timestamptz - interval '1 hour', interval '1 hour') h
), days AS (
    -- The whole UTC days among them whose 24 hours are one local day (the zone is at UTC+0 that
    -- day: UTC itself, or London in winter). They are read from the daily rows of grain 4 (by
    -- app version, platform and campaign), one row per stratum instead of 24; not when the
    -- variant matters, which only the hourly grain 0 keeps.
    SELECT utc_day, min(day) AS day
    FROM hours
    WHERE inside AND $9::text IS NULL AND $10::text <> 'variant'
    GROUP BY utc_day
    HAVING count(*) = 24 AND min(day) = max(day)
), parts AS (
    SELECT CASE $10::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                          WHEN 'campaign' THEN r.campaign ELSE '' END AS group_value,
        r.app_version, days.day, r.category, r.has_media,
        r.delivered, r.sent, r.media_requested, r.opens, r.dismissals, r.actions, r.replies
    FROM rollup_counts r JOIN days ON r.hour = days.utc_day
    WHERE r.app_id = $1::bigint AND r.grain = 4
      AND r.hour >= $2::timestamptz AND r.hour < $3::timestamptz
      AND ($6::text IS NULL OR r.app_version = $6::text) AND ($7::text IS NULL OR r.platform = $7::text)
      AND ($8::text IS NULL OR r.campaign = $8::text)
    UNION ALL
    -- The other hours, from the hourly grain $5.
    SELECT CASE $10::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                          WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
        r.app_version, hours.day, r.category, r.has_media,
        r.delivered, r.sent, r.media_requested, r.opens, r.dismissals, r.actions, r.replies
    FROM rollup_counts r JOIN hours ON r.hour = hours.hour AND hours.inside
    WHERE r.app_id = $1::bigint AND r.grain = $5::smallint
      AND r.hour >= $2::timestamptz AND r.hour < $3::timestamptz
      AND NOT EXISTS (SELECT 1 FROM days WHERE days.utc_day = hours.utc_day)
      AND ($6::text IS NULL OR r.app_version = $6::text) AND ($7::text IS NULL OR r.platform = $7::text)
      AND ($8::text IS NULL OR r.campaign = $8::text) AND ($9::text IS NULL OR r.variant = $9::text)
), sums AS (
    -- Grouped on the date itself; it becomes text only for the few result rows.
    SELECT group_value, app_version, day, category, has_media,
        sum(delivered) AS delivered, sum(sent) AS sent, sum(media_requested) AS media_requested, sum(opens) AS opens,
        sum(dismissals) AS dismissals, sum(actions) AS actions, sum(replies) AS replies
    FROM parts
    GROUP BY 1, 2, 3, 4, 5
)
SELECT group_value, app_version, to_char(day::timestamp, 'YYYY-MM-DD') AS day, category, has_media,
    delivered::bigint, sent::bigint, media_requested::bigint, opens::bigint,
    dismissals::bigint, actions::bigint, replies::bigint
FROM sums
ORDER BY 1, 2, 3, 4, 5
