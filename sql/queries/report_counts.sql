-- Engagement counts of app $1 from rollup_counts at grain $5, over the whole UTC hours that
-- lie inside [$2, $3) and inside one local day of time zone $4: by --by group, app version (for
-- the dismiss base), local day, category and rich/text-only. The other hours of the range come
-- from report_raw_counts.sql over the ranges report_raw_ranges.sql lists; the caller adds the
-- two. Filters $6-$9 (app version, platform, campaign, variant; NULL = any); $10 the --by
-- dimension ('' for none, or appVersion, platform, campaign, variant).
WITH parts AS (
    SELECT CASE $10::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                          WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
        r.app_version, (r.hour AT TIME ZONE $4::text)::date AS day, r.category, r.has_media,
        r.delivered, r.sent, r.media_requested, r.opens, r.dismissals, r.actions, r.replies
    FROM rollup_counts r
    WHERE r.app_id = $1::bigint AND r.grain = $5::smallint
      AND r.hour >= $2::timestamptz AND r.hour + interval '1 hour' <= $3::timestamptz
      AND (r.hour AT TIME ZONE $4::text)::date = ((r.hour + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $4::text)::date
      AND ($6::text IS NULL OR r.app_version = $6::text) AND ($7::text IS NULL OR r.platform = $7::text)
      AND ($8::text IS NULL OR r.campaign = $8::text) AND ($9::text IS NULL OR r.variant = $9::text)
)
SELECT group_value, app_version, day::text, category, has_media,
    sum(delivered)::bigint, sum(sent)::bigint, sum(media_requested)::bigint, sum(opens)::bigint,
    sum(dismissals)::bigint, sum(actions)::bigint, sum(replies)::bigint
FROM parts
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
