-- The sums of report_conversion_uplift_days.sql computed from the events (each stratum's delivered
-- by side) and notification_conversions (its converted notifications by side) of app $1 in the
-- whole UTC days of [$2, $3), by --by group ($5, campaign or platform only, which never split a
-- stratum), category, conversion name and currency. $4: the filters (see report_raw_conversions.sql).
-- Every (group, name, currency) converted in the range gets every day of every category of its
-- group (base and correction as in report_conversion_uplift_days.sql).
WITH strata AS (
    SELECT tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version) AS group_value,
        e.category, tapwire_utc_day(e.event_time) AS day, coalesce(e.campaign, '') AS campaign, e.platform,
        count(*) FILTER (WHERE e.has_media) AS rich_delivered, count(*) FILTER (WHERE NOT e.has_media) AS text_delivered
    FROM events e
    WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz AND e.type = 'delivered'
      AND tapwire_utc_day(e.event_time) >= $2::timestamptz AND tapwire_utc_day(e.event_time) + interval '86400 seconds' <= $3::timestamptz
      AND tapwire_event_matches($4::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version)
    GROUP BY 1, 2, 3, 4, 5
), base AS (
    SELECT s.group_value, s.category, s.day, t.*
    FROM strata s
    CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, 0, s.text_delivered, 0) t
), converted AS (
    SELECT c.group_value, c.category, c.day, c.name, c.currency, coalesce(s.rich_delivered, 0) AS rich_delivered,
        coalesce(s.text_delivered, 0) AS text_delivered, c.rich_converted, c.text_converted
    FROM (SELECT tapwire_dimension_value($5::text, NULL, n.platform, n.campaign, NULL, NULL) AS group_value, n.category,
              tapwire_utc_day(n.touch_time) AS day, n.campaign, n.platform, n.name, n.currency,
              count(*) FILTER (WHERE n.has_media) AS rich_converted, count(*) FILTER (WHERE NOT n.has_media) AS text_converted
          FROM notification_conversions n
          WHERE n.app_id = $1::bigint AND n.touch_time >= $2::timestamptz AND n.touch_time < $3::timestamptz
            AND tapwire_utc_day(n.touch_time) >= $2::timestamptz
            AND tapwire_utc_day(n.touch_time) + interval '86400 seconds' <= $3::timestamptz
            AND tapwire_event_matches($4::text[], NULL, n.platform, n.campaign, NULL, NULL)
          GROUP BY 1, 2, 3, 4, 5, 6, 7) c
    LEFT JOIN strata s ON s.group_value = c.group_value AND s.category = c.category AND s.day = c.day
                      AND s.campaign = c.campaign AND s.platform = c.platform
), names AS (
    SELECT DISTINCT tapwire_dimension_value($5::text, NULL, n.platform, n.campaign, NULL, NULL) AS group_value, n.name, n.currency
    FROM notification_conversions n
    WHERE n.app_id = $1::bigint AND n.touch_time >= $2::timestamptz AND n.touch_time < $3::timestamptz
      AND tapwire_event_matches($4::text[], NULL, n.platform, n.campaign, NULL, NULL)
), terms AS (
    SELECT n.group_value, n.name, n.currency, b.category, b.day, b.strata, b.excluded_delivered, b.weights, b.numerator, b.p,
        b.q, b.null_sum, b.deviation, b.used_rich_delivered, b.used_rich_engaged, b.used_text_delivered, b.used_text_engaged,
        b.both_rich_delivered, b.both_rich_engaged, b.both_text_delivered, b.both_text_engaged, b.not_meaningful_delivered,
        b.engaged_without_deliveries
    FROM names n
    JOIN base b ON b.group_value = n.group_value
    UNION ALL
    SELECT c.group_value, c.name, c.currency, c.category, c.day, t.strata - z.strata, t.excluded_delivered - z.excluded_delivered,
        t.weights - z.weights, t.numerator - z.numerator, t.p - z.p, t.q - z.q, t.null_sum - z.null_sum,
        t.deviation - z.deviation, t.used_rich_delivered - z.used_rich_delivered, t.used_rich_engaged - z.used_rich_engaged,
        t.used_text_delivered - z.used_text_delivered, t.used_text_engaged - z.used_text_engaged,
        t.both_rich_delivered - z.both_rich_delivered, t.both_rich_engaged - z.both_rich_engaged,
        t.both_text_delivered - z.both_text_delivered, t.both_text_engaged - z.both_text_engaged,
        t.not_meaningful_delivered - z.not_meaningful_delivered, t.engaged_without_deliveries - z.engaged_without_deliveries
    FROM converted c
    CROSS JOIN LATERAL tapwire_uplift_terms(c.rich_delivered, c.rich_converted, c.text_delivered, c.text_converted) t
    CROSS JOIN LATERAL tapwire_uplift_terms(c.rich_delivered, 0, c.text_delivered, 0) z
)
SELECT group_value, name, currency, category, date_part('epoch', day)::bigint / 86400 AS utc_day, sum(strata) AS strata,
    sum(excluded_delivered) AS excluded_delivered, sum(weights)::text AS weights, sum(numerator)::text AS numerator,
    sum(p)::text AS p, sum(q)::text AS q, sum(null_sum)::text AS null_sum, sum(deviation)::text AS deviation,
    sum(used_rich_delivered) AS used_rich_delivered, sum(used_rich_engaged) AS used_rich_engaged,
    sum(used_text_delivered) AS used_text_delivered, sum(used_text_engaged) AS used_text_engaged,
    sum(both_rich_delivered) AS both_rich_delivered, sum(both_rich_engaged) AS both_rich_engaged,
    sum(both_text_delivered) AS both_text_delivered, sum(both_text_engaged) AS both_text_engaged,
    sum(not_meaningful_delivered) AS not_meaningful_delivered, sum(engaged_without_deliveries) AS engaged_without_deliveries
FROM terms
GROUP BY 1, 2, 3, 4, 5
