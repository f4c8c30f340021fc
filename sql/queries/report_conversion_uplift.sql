-- The Mantel–Haenszel sums of rich vs text-only on conversion of app $1 per whole UTC day $2, by
-- category and conversion name and currency ($3, $4: those the range converted,
-- report_conversions.sql), from the sums kept as the strata change (migration 0180): the strata
-- are the engagement report's (category × campaign × platform × UTC day), each side's delivered
-- and converted notifications (docs/outcomes.md) in place of engaged. Columns as
-- report_uplift_days.sql's, with name and currency. A filtered or grouped report and the
-- raw-events report compute the same sums from the events: report_raw_conversion_uplift.sql.
--
-- A stratum without a conversion of a name has the terms of (delivered, 0) on both sides for it,
-- so each category's day keeps those once over all its strata (rollup_conversion_base_days) and
-- each name, for the strata where it converted, its own terms less those
-- (rollup_conversion_uplift_days): a name's terms of a day are the one plus the other. Each name
-- gets every day of every category, converted that day or not, so the overall's strata
-- (× category) are all there; a name converted on a day its category delivered nothing has its
-- part alone. One row of each per key, so a join, not an aggregate (the same exact decimals).
WITH names AS (
    SELECT DISTINCT name, currency FROM unnest($3::text[], $4::text[]) AS n (name, currency)
), bases AS (
    SELECT n.name, n.currency, b.category, b.day, b.strata, b.excluded_delivered, b.weights, b.numerator, b.p, b.q,
        b.null_sum, b.deviation, b.used_rich_delivered, b.used_rich_engaged, b.used_text_delivered, b.used_text_engaged,
        b.both_rich_delivered, b.both_rich_engaged, b.both_text_delivered, b.both_text_engaged, b.not_meaningful_delivered,
        b.engaged_without_deliveries
    FROM names n
    CROSS JOIN rollup_conversion_base_days b
    WHERE b.app_id = $1::bigint AND b.day = ANY ($2::timestamptz[])
), parts AS (
    SELECT u.*
    FROM rollup_conversion_uplift_days u
    JOIN names n ON n.name = u.name AND n.currency = u.currency
    WHERE u.app_id = $1::bigint AND u.day = ANY ($2::timestamptz[])
)
SELECT name, currency, category, date_part('epoch', day)::bigint / 86400 AS utc_day,
    coalesce(b.strata, 0) + coalesce(p.strata, 0) AS strata,
    coalesce(b.excluded_delivered, 0) + coalesce(p.excluded_delivered, 0) AS excluded_delivered,
    (coalesce(b.weights, 0) + coalesce(p.weights, 0)) AS weights,
    (coalesce(b.numerator, 0) + coalesce(p.numerator, 0)) AS numerator,
    (coalesce(b.p, 0) + coalesce(p.p, 0)) AS p, (coalesce(b.q, 0) + coalesce(p.q, 0)) AS q,
    (coalesce(b.null_sum, 0) + coalesce(p.null_sum, 0)) AS null_sum,
    (coalesce(b.deviation, 0) + coalesce(p.deviation, 0)) AS deviation,
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
FULL JOIN parts p USING (name, currency, category, day)
-- In the order the report adds the days up in (EngagementReportBuilder.addConversions; byte order,
-- as Swift compares ASCII text), so it need not sort them again.
ORDER BY category COLLATE "C", name COLLATE "C", currency COLLATE "C", utc_day
