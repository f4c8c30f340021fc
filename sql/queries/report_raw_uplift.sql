-- The sums of report_uplift_days.sql computed from the events of app $1 in the whole UTC days of
-- [$2, $3) (see report_raw_totals.sql): each stratum (category × campaign × platform × UTC day)
-- counted from its events, its terms from tapwire_uplift_terms (migration 0150), summed by --by
-- group ($5), category and day; and again over every group (whole_report), since a group by a
-- dimension the strata do not keep (app version, variant, OS) splits strata, whose terms do not
-- add up. Strata without a delivery or an engaged response make no row. $4: the filters.
WITH cells AS (
    SELECT GROUPING(tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version)) = 1 AS whole_report,
        coalesce(tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version), '') AS group_value, e.category, tapwire_utc_day(e.event_time) AS day,
        coalesce(e.campaign, '') AS campaign, e.platform,
        count(*) FILTER (WHERE e.has_media AND e.type = 'delivered') AS rich_delivered,
        count(*) FILTER (WHERE e.has_media AND e.type = 'response'
                           AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier') AS rich_engaged,
        count(*) FILTER (WHERE NOT e.has_media AND e.type = 'delivered') AS text_delivered,
        count(*) FILTER (WHERE NOT e.has_media AND e.type = 'response'
                           AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier') AS text_engaged
    FROM events e
    WHERE e.app_id = $1::bigint AND e.event_time >= $2::timestamptz AND e.event_time < $3::timestamptz
      AND tapwire_utc_day(e.event_time) >= $2::timestamptz AND tapwire_utc_day(e.event_time) + interval '86400 seconds' <= $3::timestamptz
      AND tapwire_event_matches($4::text[], e.app_version, e.platform, e.campaign, e.variant, e.os_version)
      AND e.type NOT IN ('conversion', 'assignment')
    GROUP BY GROUPING SETS ((tapwire_dimension_value($5::text, e.app_version, e.platform, e.campaign, e.variant, e.os_version), e.category, tapwire_utc_day(e.event_time), coalesce(e.campaign, ''), e.platform),
                            (e.category, tapwire_utc_day(e.event_time), coalesce(e.campaign, ''), e.platform))
    HAVING count(*) FILTER (WHERE e.type = 'delivered' OR (e.type = 'response'
                                  AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier')) > 0
)
SELECT c.whole_report, c.group_value, c.category, date_part('epoch', c.day)::bigint / 86400 AS utc_day, sum(t.strata) AS strata,
    sum(t.excluded_delivered) AS excluded_delivered, sum(t.weights) AS weights, sum(t.numerator) AS numerator,
    sum(t.p) AS p, sum(t.q) AS q, sum(t.null_sum) AS null_sum, sum(t.deviation) AS deviation,
    sum(t.used_rich_delivered) AS used_rich_delivered, sum(t.used_rich_engaged) AS used_rich_engaged,
    sum(t.used_text_delivered) AS used_text_delivered, sum(t.used_text_engaged) AS used_text_engaged,
    sum(t.both_rich_delivered) AS both_rich_delivered, sum(t.both_rich_engaged) AS both_rich_engaged,
    sum(t.both_text_delivered) AS both_text_delivered, sum(t.both_text_engaged) AS both_text_engaged,
    sum(t.not_meaningful_delivered) AS not_meaningful_delivered, sum(t.engaged_without_deliveries) AS engaged_without_deliveries
FROM cells c
CROSS JOIN LATERAL tapwire_uplift_terms(c.rich_delivered, c.rich_engaged, c.text_delivered, c.text_engaged) t
GROUP BY 1, 2, 3, 4
