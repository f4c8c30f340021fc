-- The sums over the strata of the adjusted rich vs text-only difference of app $1, by category,
-- for the whole UTC days $2 (rollup_uplift_days, migration 0150). The rows are read in binary
-- (PostgresConnection.queryBinary) and each numeric becomes its nearest double, so the same sums
-- read twice are the same doubles.
SELECT category, (date_part('epoch', day)::bigint / 86400) AS utc_day, strata, excluded_delivered,
    weights, numerator, p, q, null_sum, deviation,
    used_rich_delivered, used_rich_engaged, used_text_delivered, used_text_engaged,
    both_rich_delivered, both_rich_engaged, both_text_delivered, both_text_engaged,
    not_meaningful_delivered, engaged_without_deliveries
FROM rollup_uplift_days
WHERE app_id = $1::bigint AND day = ANY ($2::timestamptz[])
