-- Engagement counts of app $1 over [$2, $3), by local day in time zone $4, category and
-- rich/text-only, plus the app version (for the dismiss base) and the --by group value.
--
-- Whole UTC hours that lie inside the range and inside one local day come from rollup_counts
-- at grain $5; every other hour of the range (a range edge or a local midnight that is not on
-- the hour) comes from events, cut exactly at the edges. $11 = true reads every hour from
-- events (the benchmark's baseline; the numbers are the same).
-- Filters $6-$9 (app version, platform, campaign, variant; NULL = any); $10 the --by dimension
-- ('' for none, or appVersion, platform, campaign, variant).
WITH raw_hours AS (
    SELECT h FROM generate_series(tapwire_hour($2::timestamptz), $3::timestamptz - interval '1 microsecond', interval '1 hour') h
    WHERE $11::boolean OR NOT (h >= $2::timestamptz AND h + interval '1 hour' <= $3::timestamptz
        AND (h AT TIME ZONE $4::text)::date = ((h + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $4::text)::date)
), parts AS (
    SELECT CASE $10::text WHEN 'appVersion' THEN r.app_version WHEN 'platform' THEN r.platform
                          WHEN 'campaign' THEN r.campaign WHEN 'variant' THEN r.variant ELSE '' END AS group_value,
        r.app_version, (r.hour AT TIME ZONE $4::text)::date AS day, r.category, r.has_media,
        r.delivered, r.sent, r.media_requested, r.opens, r.dismissals, r.actions, r.replies
    FROM rollup_counts r
    WHERE r.app_id = $1::bigint AND r.grain = $5::smallint AND NOT $11::boolean
      AND r.hour >= $2::timestamptz AND r.hour + interval '1 hour' <= $3::timestamptz
      AND (r.hour AT TIME ZONE $4::text)::date = ((r.hour + interval '1 hour' - interval '1 microsecond') AT TIME ZONE $4::text)::date
      AND ($6::text IS NULL OR r.app_version = $6::text) AND ($7::text IS NULL OR r.platform = $7::text)
      AND ($8::text IS NULL OR r.campaign = $8::text) AND ($9::text IS NULL OR r.variant = $9::text)
    UNION ALL
    SELECT CASE $10::text WHEN 'appVersion' THEN e.app_version WHEN 'platform' THEN e.platform
                          WHEN 'campaign' THEN coalesce(e.campaign, '') WHEN 'variant' THEN coalesce(e.variant, '') ELSE '' END,
        e.app_version, (e.event_time AT TIME ZONE $4::text)::date, e.category, e.has_media,
        count(*) FILTER (WHERE e.type = 'delivered'),
        count(*) FILTER (WHERE e.type = 'sent'),
        count(*) FILTER (WHERE e.type = 'delivered' AND e.media_requested),
        count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier = 'com.apple.UNNotificationDefaultActionIdentifier'),
        count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier = 'com.apple.UNNotificationDismissActionIdentifier'),
        count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier NOT IN
            ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')),
        count(*) FILTER (WHERE e.type = 'response' AND e.user_text_length IS NOT NULL AND e.action_identifier NOT IN
            ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier'))
    FROM raw_hours rh
    JOIN events e ON e.app_id = $1::bigint
        AND e.event_time >= greatest(rh.h, $2::timestamptz) AND e.event_time < least(rh.h + interval '1 hour', $3::timestamptz)
    WHERE ($6::text IS NULL OR e.app_version = $6::text) AND ($7::text IS NULL OR e.platform = $7::text)
      AND ($8::text IS NULL OR coalesce(e.campaign, '') = $8::text) AND ($9::text IS NULL OR coalesce(e.variant, '') = $9::text)
    GROUP BY 1, 2, 3, 4, 5
)
SELECT group_value, app_version, day::text, category, has_media,
    sum(delivered)::bigint, sum(sent)::bigint, sum(media_requested)::bigint, sum(opens)::bigint,
    sum(dismissals)::bigint, sum(actions)::bigint, sum(replies)::bigint
FROM parts
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
