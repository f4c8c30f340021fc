-- Engagement counts of app $1 from rollup_counts at grain $5, over the whole UTC hours that
-- lie inside [$2, $3) and inside one local day of time zone $4: by --by group, app version (for
-- the dismiss base), local day, category and rich/text-only. The other hours of the range come
-- from report_raw_counts.sql over the ranges report_raw_ranges.sql lists; the caller adds the
-- two. Filters $6-$9 (app version, platform, campaign, variant; NULL = any); $10 the --by
-- dimension ('' for none, or appVersion, platform, campaign, variant).
WITH hours AS (
    -- The whole UTC hours of [$2, $3) that lie inside one local day, each with that day: the
    -- time zone is converted once per hour here, not twice per rollup row.
    SELECT h AS hour, (h AT TIME ZONE $4::text)::date AS day
    FROM generate_series(date_trunc('hour', $2::timestamptz + interval '1 hour' - interval '1 microsecond', 'UTC'),
                         $3::timestamptz - interval '1 hour', interval '1 hour') h
    WHERE (h AT TIME ZONE $4::text)::date = ((h + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $4::text)::date
), parts AS (
    SELECT CASE $10::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                          WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
        r.app_version, hours.day, r.category, r.has_media,
        r.delivered, r.sent, r.media_requested, r.opens, r.dismissals, r.actions, r.replies
    FROM rollup_counts r JOIN hours ON r.hour = hours.hour
    WHERE r.app_id = $1::bigint AND r.grain = $5::smallint
      AND r.hour >= $2::timestamptz AND r.hour < $3::timestamptz
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
