-- The Mantel–Haenszel sums of rich vs text-only on conversion of app $1, by category, conversion
-- name and currency, for the whole UTC days $2: the strata are the engagement report's (category
-- × campaign × platform × UTC day), each side's delivered from rollup_strata and its converted
-- notifications from rollup_conversion_strata, each stratum's terms from tapwire_uplift_terms
-- (migration 0150) with converted in place of engaged. Columns as report_uplift_days.sql's. The
-- names and currencies $3, $4 are those the range converted (report_conversions.sql): each gets
-- every day of every category, converted that day or not, so that the overall's strata (× category)
-- are all there.
--
-- A stratum without a conversion of a name has the terms of (delivered, 0) on both sides for it.
-- So each category's day adds those terms once over all its strata (`base`), and each name adds,
-- for the strata where it converted, its own terms less those (`correction`): one pass over the
-- day's strata whatever the number of names, and the same exact decimals as summing each name's
-- terms stratum by stratum.
WITH strata AS (
    SELECT s.category, s.day, s.campaign, s.platform, s.rich_delivered, s.text_delivered
    FROM rollup_strata s
    WHERE s.app_id = $1::bigint AND s.day = ANY ($2::timestamptz[]) AND (s.rich_delivered > 0 OR s.text_delivered > 0)
), base AS (
    SELECT s.category, s.day, t.*
    FROM strata s
    CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, 0, s.text_delivered, 0) t
), converted AS (
    SELECT c.category, c.day, c.name, c.currency, coalesce(s.rich_delivered, 0) AS rich_delivered,
        coalesce(s.text_delivered, 0) AS text_delivered, c.rich_converted, c.text_converted
    FROM rollup_conversion_strata c
    LEFT JOIN strata s ON s.category = c.category AND s.day = c.day AND s.campaign = c.campaign AND s.platform = c.platform
    WHERE c.app_id = $1::bigint AND c.day = ANY ($2::timestamptz[]) AND (c.rich_converted <> 0 OR c.text_converted <> 0)
), names AS (
    SELECT DISTINCT name, currency FROM unnest($3::text[], $4::text[]) AS n (name, currency)
), terms AS (
    SELECT n.name, n.currency, b.category, b.day, b.strata, b.excluded_delivered, b.weights, b.numerator, b.p, b.q, b.null_sum,
        b.deviation, b.used_rich_delivered, b.used_rich_engaged, b.used_text_delivered, b.used_text_engaged,
        b.both_rich_delivered, b.both_rich_engaged, b.both_text_delivered, b.both_text_engaged, b.not_meaningful_delivered,
        b.engaged_without_deliveries
    FROM names n
    CROSS JOIN base b
    UNION ALL
    SELECT c.name, c.currency, c.category, c.day, t.strata - z.strata, t.excluded_delivered - z.excluded_delivered,
        t.weights - z.weights, t.numerator - z.numerator, t.p - z.p, t.q - z.q, t.null_sum - z.null_sum,
        t.deviation - z.deviation, t.used_rich_delivered - z.used_rich_delivered, t.used_rich_engaged - z.used_rich_engaged,
        t.used_text_delivered - z.used_text_delivered, t.used_text_engaged - z.used_text_engaged,
        t.both_rich_delivered - z.both_rich_delivered, t.both_rich_engaged - z.both_rich_engaged,
        t.both_text_delivered - z.both_text_delivered, t.both_text_engaged - z.both_text_engaged,
        t.not_meaningful_delivered - z.not_meaningful_delivered, t.engaged_without_deliveries - z.engaged_without_deliveries
    FROM converted c
    JOIN names n ON n.name = c.name AND n.currency = c.currency
    CROSS JOIN LATERAL tapwire_uplift_terms(c.rich_delivered, c.rich_converted, c.text_delivered, c.text_converted) t
    CROSS JOIN LATERAL tapwire_uplift_terms(c.rich_delivered, 0, c.text_delivered, 0) z
)
SELECT name, currency, category, date_part('epoch', day)::bigint / 86400 AS utc_day, sum(strata) AS strata,
    sum(excluded_delivered) AS excluded_delivered, sum(weights)::text AS weights, sum(numerator)::text AS numerator,
    sum(p)::text AS p, sum(q)::text AS q, sum(null_sum)::text AS null_sum, sum(deviation)::text AS deviation,
    sum(used_rich_delivered) AS used_rich_delivered, sum(used_rich_engaged) AS used_rich_engaged,
    sum(used_text_delivered) AS used_text_delivered, sum(used_text_engaged) AS used_text_engaged,
    sum(both_rich_delivered) AS both_rich_delivered, sum(both_rich_engaged) AS both_rich_engaged,
    sum(both_text_delivered) AS both_text_delivered, sum(both_text_engaged) AS both_text_engaged,
    sum(not_meaningful_delivered) AS not_meaningful_delivered, sum(engaged_without_deliveries) AS engaged_without_deliveries
FROM terms
GROUP BY 1, 2, 3, 4
