-- The Mantel–Haenszel sums of rich vs text-only on conversion of app $1, by --by group, category,
-- conversion name and currency, per whole UTC day: the strata are the engagement report's
-- (category × campaign × platform × UTC day), each side's delivered and converted notifications
-- (docs/outcomes.md) in place of engaged, and each stratum's terms from tapwire_uplift_terms
-- (migration 0150). Columns as report_uplift_days.sql's, with group_value, name and currency.
--
-- $9 says where the sums come from:
--   'rollups'  the whole UTC days $4 of the sums kept as the strata change (migration 0180):
--              each category's day's base (rollup_conversion_base_days) and each name's part
--              (rollup_conversion_uplift_days); the names and currencies $5, $6 are those the
--              range converted (report_conversions.sql); group_value is ''.
--   'events'   the whole UTC days of [$2, $3) from the events (delivered) and
--              notification_conversions (converted), by --by group ($8: campaign or platform, which
--              never split a stratum), filtered by $7 (tapwire_event_matches): what a filtered or
--              grouped report and the raw-events report read; the names are those converted in the
--              range.
--
-- A stratum without a conversion of a name has the terms of (delivered, 0) on both sides for it.
-- So each category's day adds those terms once over all its strata (the base), and each name adds,
-- for the strata where it converted, its own terms less those (tapwire_conversion_terms): the same
-- exact decimals as summing each name's terms stratum by stratum. 'rollups' reads both as kept;
-- 'events' computes them here, in one pass over the day's strata whatever the number of names.
-- Each name gets every day of every category of its group, converted that day or not, so the
-- overall's strata (× category) are all there.
WITH strata AS (
    SELECT tapwire_dimension_value($8::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version) AS group_value,
        e.category, tapwire_utc_day(e.event_time) AS day, coalesce(e.campaign, '') AS campaign, e.platform,
        count(*) FILTER (WHERE e.has_media) AS rich_delivered, count(*) FILTER (WHERE NOT e.has_media) AS text_delivered
    FROM events e
    WHERE $9::text = 'events' AND e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
      AND e.type = 'delivered'
      AND tapwire_utc_day(e.event_time) >= $2::timestamptz AND tapwire_utc_day(e.event_time) + interval '86400 seconds' <= $3::timestamptz
      AND tapwire_event_matches($7::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version)
    GROUP BY 1, 2, 3, 4, 5
), converted_strata AS (
    SELECT tapwire_dimension_value($8::text, NULL, n.platform, n.campaign, NULL, NULL) AS group_value, n.category,
        tapwire_utc_day(n.touch_time) AS day, n.campaign, n.platform, n.name, n.currency,
        count(*) FILTER (WHERE n.has_media) AS rich_converted, count(*) FILTER (WHERE NOT n.has_media) AS text_converted
    FROM notification_conversions n
    WHERE $9::text = 'events' AND n.app_id = $1::bigint AND n.touch_time >= $2::timestamptz AND n.touch_time < $3::timestamptz
      AND tapwire_utc_day(n.touch_time) >= $2::timestamptz AND tapwire_utc_day(n.touch_time) + interval '86400 seconds' <= $3::timestamptz
      AND tapwire_event_matches($7::text[], NULL, n.platform, n.campaign, NULL, NULL)
    GROUP BY 1, 2, 3, 4, 5, 6, 7
), names AS (
    SELECT DISTINCT ''::text AS group_value, n.name, n.currency
    FROM unnest($5::text[], $6::text[]) AS n (name, currency)
    WHERE $9::text = 'rollups'
    UNION
    SELECT tapwire_dimension_value($8::text, NULL, n.platform, n.campaign, NULL, NULL), n.name, n.currency
    FROM notification_conversions n
    WHERE $9::text = 'events' AND n.app_id = $1::bigint AND n.touch_time >= $2::timestamptz AND n.touch_time < $3::timestamptz
      AND tapwire_event_matches($7::text[], NULL, n.platform, n.campaign, NULL, NULL)
), base AS (
    -- Strata of one category and day with the same delivered on each side have the same terms:
    -- each pair's terms once, times how many strata have it (exact: the terms are decimals).
    SELECT b.group_value, b.category, b.day, b.k, t.*
    FROM (SELECT group_value, category, day, rich_delivered, text_delivered, count(*) AS k
          FROM strata GROUP BY 1, 2, 3, 4, 5) b
    CROSS JOIN LATERAL tapwire_uplift_terms(b.rich_delivered, 0, b.text_delivered, 0) t
), converted AS (
    SELECT c.group_value, c.category, c.day, c.name, c.currency, coalesce(s.rich_delivered, 0) AS rich_delivered,
        coalesce(s.text_delivered, 0) AS text_delivered, c.rich_converted, c.text_converted, count(*) AS k
    FROM converted_strata c
    JOIN names n ON n.group_value = c.group_value AND n.name = c.name AND n.currency = c.currency
    LEFT JOIN strata s ON s.group_value = c.group_value AND s.category = c.category AND s.day = c.day
                      AND s.campaign = c.campaign AND s.platform = c.platform
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
), base_days AS (
    -- The (delivered, 0) terms summed per category and day, before they meet the names.
    SELECT group_value, category, day, sum(k * strata) AS strata, sum(k * excluded_delivered) AS excluded_delivered,
        sum(k * weights) AS weights, sum(k * numerator) AS numerator, sum(k * p) AS p, sum(k * q) AS q,
        sum(k * null_sum) AS null_sum, sum(k * deviation) AS deviation, sum(k * used_rich_delivered) AS used_rich_delivered,
        sum(k * used_rich_engaged) AS used_rich_engaged, sum(k * used_text_delivered) AS used_text_delivered,
        sum(k * used_text_engaged) AS used_text_engaged, sum(k * both_rich_delivered) AS both_rich_delivered,
        sum(k * both_rich_engaged) AS both_rich_engaged, sum(k * both_text_delivered) AS both_text_delivered,
        sum(k * both_text_engaged) AS both_text_engaged, sum(k * not_meaningful_delivered) AS not_meaningful_delivered,
        sum(k * engaged_without_deliveries) AS engaged_without_deliveries
    FROM base
    GROUP BY 1, 2, 3
    UNION ALL
    SELECT ''::text, b.category, b.day,
        b.strata, b.excluded_delivered, b.weights, b.numerator, b.p, b.q, b.null_sum, b.deviation,
        b.used_rich_delivered, b.used_rich_engaged, b.used_text_delivered, b.used_text_engaged, b.both_rich_delivered,
        b.both_rich_engaged, b.both_text_delivered, b.both_text_engaged, b.not_meaningful_delivered,
        b.engaged_without_deliveries
    FROM rollup_conversion_base_days b
    WHERE $9::text = 'rollups' AND b.app_id = $1::bigint AND b.day = ANY ($4::timestamptz[])
), parts AS (
    -- Each name's own part (its terms less the (delivered, 0) ones where it converted), one row
    -- per group, name, currency, category and day: summed here over the day's converted strata
    -- for 'events', kept so (its primary key) for 'rollups'.
    SELECT c.group_value, c.name, c.currency, c.category, c.day,
        sum(c.k * (t.strata - z.strata)) AS strata,
        sum(c.k * (t.excluded_delivered - z.excluded_delivered)) AS excluded_delivered,
        sum(c.k * (t.weights - z.weights)) AS weights, sum(c.k * (t.numerator - z.numerator)) AS numerator,
        sum(c.k * (t.p - z.p)) AS p, sum(c.k * (t.q - z.q)) AS q, sum(c.k * (t.null_sum - z.null_sum)) AS null_sum,
        sum(c.k * (t.deviation - z.deviation)) AS deviation,
        sum(c.k * (t.used_rich_delivered - z.used_rich_delivered)) AS used_rich_delivered,
        sum(c.k * (t.used_rich_engaged - z.used_rich_engaged)) AS used_rich_engaged,
        sum(c.k * (t.used_text_delivered - z.used_text_delivered)) AS used_text_delivered,
        sum(c.k * (t.used_text_engaged - z.used_text_engaged)) AS used_text_engaged,
        sum(c.k * (t.both_rich_delivered - z.both_rich_delivered)) AS both_rich_delivered,
        sum(c.k * (t.both_rich_engaged - z.both_rich_engaged)) AS both_rich_engaged,
        sum(c.k * (t.both_text_delivered - z.both_text_delivered)) AS both_text_delivered,
        sum(c.k * (t.both_text_engaged - z.both_text_engaged)) AS both_text_engaged,
        sum(c.k * (t.not_meaningful_delivered - z.not_meaningful_delivered)) AS not_meaningful_delivered,
        sum(c.k * (t.engaged_without_deliveries - z.engaged_without_deliveries)) AS engaged_without_deliveries
    FROM converted c
    CROSS JOIN LATERAL tapwire_uplift_terms(c.rich_delivered, c.rich_converted, c.text_delivered, c.text_converted) t
    CROSS JOIN LATERAL tapwire_uplift_terms(c.rich_delivered, 0, c.text_delivered, 0) z
    GROUP BY 1, 2, 3, 4, 5
    UNION ALL
    SELECT ''::text, u.name, u.currency, u.category, u.day,
        u.strata, u.excluded_delivered, u.weights, u.numerator, u.p, u.q, u.null_sum, u.deviation,
        u.used_rich_delivered, u.used_rich_engaged, u.used_text_delivered, u.used_text_engaged, u.both_rich_delivered,
        u.both_rich_engaged, u.both_text_delivered, u.both_text_engaged, u.not_meaningful_delivered,
        u.engaged_without_deliveries
    FROM rollup_conversion_uplift_days u
    JOIN names n ON n.group_value = '' AND n.name = u.name AND n.currency = u.currency
    WHERE $9::text = 'rollups' AND u.app_id = $1::bigint AND u.day = ANY ($4::timestamptz[])
), bases AS (
    -- Every name gets its group's base of every category's day.
    SELECT n.group_value, n.name, n.currency, b.category, b.day,
        b.strata, b.excluded_delivered, b.weights, b.numerator, b.p, b.q, b.null_sum, b.deviation,
        b.used_rich_delivered, b.used_rich_engaged, b.used_text_delivered, b.used_text_engaged,
        b.both_rich_delivered, b.both_rich_engaged, b.both_text_delivered, b.both_text_engaged, b.not_meaningful_delivered,
        b.engaged_without_deliveries
    FROM names n
    JOIN base_days b ON b.group_value = n.group_value
)
-- At most one base and one part per key (one branch of each runs), so the terms are their sum:
-- a join, not an aggregate over the two (the same exact decimals, without hashing every row's
-- sums; a part without a base is a name converted on a day its category delivered nothing).
SELECT group_value, name, currency, category, date_part('epoch', day)::bigint / 86400 AS utc_day,
    coalesce(b.strata, 0) + coalesce(p.strata, 0) AS strata,
    coalesce(b.excluded_delivered, 0) + coalesce(p.excluded_delivered, 0) AS excluded_delivered,
    (coalesce(b.weights, 0) + coalesce(p.weights, 0))::text AS weights,
    (coalesce(b.numerator, 0) + coalesce(p.numerator, 0))::text AS numerator,
    (coalesce(b.p, 0) + coalesce(p.p, 0))::text AS p, (coalesce(b.q, 0) + coalesce(p.q, 0))::text AS q,
    (coalesce(b.null_sum, 0) + coalesce(p.null_sum, 0))::text AS null_sum,
    (coalesce(b.deviation, 0) + coalesce(p.deviation, 0))::text AS deviation,
    coalesce(b.used_rich_delivered, 0) + coalesce(p.used_rich_delivered, 0) AS used_rich_delivered,
    coalesce(b.used_rich_engaged, 0) + coalesce(p.used_rich_engaged, 0) AS used_rich_engaged,
    coalesce(b.used_text_delivered, 0) + coalesce(p.used_text_delivered, 0) AS used_text_delivered,
    coalesce(b.used_text_engaged, 0) + coalesce(p.used_text_engaged, 0) AS used_text_engaged,
    coalesce(b.both_rich_delivered, 0) + coalesce(p.both_rich_delivered, 0) AS both_rich_delivered,
    coalesce(b.both_rich_engaged, 0) + coalesce(p.both_rich_engaged, 0) AS both_rich_engaged,
    coalesce(b.both_text_delivered, 0) + coalesce(p.both_text_delivered, 0) AS both_text_delivered,
    coalesce(b.both_text_engaged, 0) + coalesce(p.both_text_engaged, 0) AS both_text_engaged,
    coalesce(b.not_meaningful_delivered, 0) + coalesce(p.not_meaningful_delivered, 0) AS not_meaningful_delivered,
    coalesce(b.engaged_without_deliveries, 0) + coalesce(p.engaged_without_deliveries, 0) AS engaged_without_deliveries
FROM bases b
FULL JOIN parts p USING (group_value, name, currency, category, day)
-- In the order the report adds the days up in (EngagementReportBuilder.addConversions; byte order,
-- as Swift compares ASCII text), so it need not sort them again.
ORDER BY group_value COLLATE "C", category COLLATE "C", name COLLATE "C", currency COLLATE "C", utc_day
