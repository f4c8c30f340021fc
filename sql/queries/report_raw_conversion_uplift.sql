-- The Mantel–Haenszel sums of rich vs text-only on conversion of app $1 computed from the events
-- of [$2, $3), by --by group ($5: campaign or platform, which never split a stratum), category,
-- conversion name and currency, per whole UTC day of the range, filtered by $4
-- (tapwire_event_matches): what a filtered or grouped report and the raw-events report read (an
-- unfiltered report reads the same sums kept in the rollups: report_conversion_uplift.sql). The
-- strata are the engagement report's (category × campaign × platform × UTC day), each side's
-- delivered (from the events) and converted notifications (notification_conversions, docs/outcomes.md)
-- in place of engaged, and each stratum's terms from tapwire_uplift_terms (migration 0150); the
-- names are those converted in the range. Columns as report_uplift_days.sql's, with group_value,
-- name and currency.
--
-- A stratum without a conversion of a name has the terms of (delivered, 0) on both sides for it.
-- So each category's day adds those terms once over all its strata (the base), and each name adds,
-- for the strata where it converted, its own terms less those (tapwire_conversion_terms): the same
-- exact decimals as summing each name's terms stratum by stratum, in one pass over the day's strata
-- whatever the number of names. Each name gets every day of every category of its group,
-- converted that day or not, so the overall's strata (× category) are all there.
WITH strata AS (
    SELECT tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version) AS group_value,
        e.category, tapwire_utc_day(e.event_time) AS day, coalesce(e.campaign, '') AS campaign, e.platform,
        count(*) FILTER (WHERE e.has_media) AS rich_delivered, count(*) FILTER (WHERE NOT e.has_media) AS text_delivered
    FROM events e
    WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
      AND e.type = 'delivered'
      AND tapwire_utc_day(e.event_time) >= $2::timestamptz AND tapwire_utc_day(e.event_time) + interval '86400 seconds' <= $3::timestamptz
      AND tapwire_event_matches($4::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version)
    GROUP BY 1, 2, 3, 4, 5
), converted_strata AS (
    SELECT tapwire_dimension_value($5::text, NULL, n.platform, n.campaign, NULL, NULL) AS group_value, n.category,
        tapwire_utc_day(n.touch_time) AS day, n.campaign, n.platform, n.name, n.currency,
        count(*) FILTER (WHERE n.has_media) AS rich_converted, count(*) FILTER (WHERE NOT n.has_media) AS text_converted
    FROM notification_conversions n
    WHERE n.app_id = $1::bigint AND n.touch_time >= $2::timestamptz AND n.touch_time < $3::timestamptz
      AND tapwire_utc_day(n.touch_time) >= $2::timestamptz AND tapwire_utc_day(n.touch_time) + interval '86400 seconds' <= $3::timestamptz
      AND tapwire_event_matches($4::text[], NULL, n.platform, n.campaign, NULL, NULL)
    GROUP BY 1, 2, 3, 4, 5, 6, 7
), names AS (
    SELECT DISTINCT tapwire_dimension_value($5::text, NULL, n.platform, n.campaign, NULL, NULL) AS group_value, n.name, n.currency
    FROM notification_conversions n
    WHERE n.app_id = $1::bigint AND n.touch_time >= $2::timestamptz AND n.touch_time < $3::timestamptz
      AND tapwire_event_matches($4::text[], NULL, n.platform, n.campaign, NULL, NULL)
), base AS (
    -- Strata of one category and day with the same delivered on each side have the same terms:
    -- each pair's terms once, times how many strata have it (exact: the terms are decimals).
    SELECT b.group_value, b.category, b.day, b.k, t.*
    FROM (SELECT group_value, category, day, rich_delivered, text_delivered, count(*) AS k
          FROM strata GROUP BY 1, 2, 3, 4, 5) b
    CROSS JOIN LATERAL tapwire_uplift_terms(b.rich_delivered, 0, b.text_delivered, 0) t
), converted AS (
    -- Every converted stratum's name is among the names (the same rows over the whole range), so
    -- no join with them: estimated at a few rows, it once led the planner to a nested loop over
    -- the strata for each converted one.
    SELECT c.group_value, c.category, c.day, c.name, c.currency, coalesce(s.rich_delivered, 0) AS rich_delivered,
        coalesce(s.text_delivered, 0) AS text_delivered, c.rich_converted, c.text_converted, count(*) AS k
    FROM converted_strata c
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
), terms AS (
    SELECT n.group_value, n.name, n.currency, b.category, b.day, b.strata, b.excluded_delivered, b.weights, b.numerator, b.p,
        b.q, b.null_sum, b.deviation, b.used_rich_delivered, b.used_rich_engaged, b.used_text_delivered, b.used_text_engaged,
        b.both_rich_delivered, b.both_rich_engaged, b.both_text_delivered, b.both_text_engaged, b.not_meaningful_delivered,
        b.engaged_without_deliveries
    FROM names n
    JOIN base_days b ON b.group_value = n.group_value
    UNION ALL
    SELECT c.group_value, c.name, c.currency, c.category, c.day, c.k * (t.strata - z.strata),
        c.k * (t.excluded_delivered - z.excluded_delivered), c.k * (t.weights - z.weights), c.k * (t.numerator - z.numerator),
        c.k * (t.p - z.p), c.k * (t.q - z.q), c.k * (t.null_sum - z.null_sum), c.k * (t.deviation - z.deviation),
        c.k * (t.used_rich_delivered - z.used_rich_delivered), c.k * (t.used_rich_engaged - z.used_rich_engaged),
        c.k * (t.used_text_delivered - z.used_text_delivered), c.k * (t.used_text_engaged - z.used_text_engaged),
        c.k * (t.both_rich_delivered - z.both_rich_delivered), c.k * (t.both_rich_engaged - z.both_rich_engaged),
        c.k * (t.both_text_delivered - z.both_text_delivered), c.k * (t.both_text_engaged - z.both_text_engaged),
        c.k * (t.not_meaningful_delivered - z.not_meaningful_delivered),
        c.k * (t.engaged_without_deliveries - z.engaged_without_deliveries)
    FROM converted c
    CROSS JOIN LATERAL tapwire_uplift_terms(c.rich_delivered, c.rich_converted, c.text_delivered, c.text_converted) t
    CROSS JOIN LATERAL tapwire_uplift_terms(c.rich_delivered, 0, c.text_delivered, 0) z
)
SELECT group_value, name, currency, category, date_part('epoch', day)::bigint / 86400 AS utc_day, sum(strata) AS strata,
    sum(excluded_delivered) AS excluded_delivered, sum(weights) AS weights, sum(numerator) AS numerator,
    sum(p) AS p, sum(q) AS q, sum(null_sum) AS null_sum, sum(deviation) AS deviation,
    sum(used_rich_delivered) AS used_rich_delivered, sum(used_rich_engaged) AS used_rich_engaged,
    sum(used_text_delivered) AS used_text_delivered, sum(used_text_engaged) AS used_text_engaged,
    sum(both_rich_delivered) AS both_rich_delivered, sum(both_rich_engaged) AS both_rich_engaged,
    sum(both_text_delivered) AS both_text_delivered, sum(both_text_engaged) AS both_text_engaged,
    sum(not_meaningful_delivered) AS not_meaningful_delivered, sum(engaged_without_deliveries) AS engaged_without_deliveries
FROM terms
GROUP BY 1, 2, 3, 4, 5
