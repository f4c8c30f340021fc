-- Report rollups, part 7: the sums over each category and UTC day's strata, recomputed from the
-- strata just written (17_rollup_strata.sql) with the terms of tapwire_uplift_terms (migration
-- 0150): where the fold adds each stratum's change of terms, this adds each stratum's terms once.
INSERT INTO rollup_uplift_days AS u (app_id, day, category, strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation,
    used_rich_delivered, used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged,
    both_text_delivered, both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
SELECT s.app_id, s.day, s.category, sum(t.strata), sum(t.excluded_delivered), sum(t.weights), sum(t.numerator), sum(t.p), sum(t.q),
       sum(t.null_sum), sum(t.deviation), sum(t.used_rich_delivered), sum(t.used_rich_engaged), sum(t.used_text_delivered),
       sum(t.used_text_engaged), sum(t.both_rich_delivered), sum(t.both_rich_engaged), sum(t.both_text_delivered),
       sum(t.both_text_engaged), sum(t.not_meaningful_delivered), sum(t.engaged_without_deliveries)
FROM rollup_strata s
CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, s.rich_engaged, s.text_delivered, s.text_engaged) t
WHERE (s.app_id, s.day) IN (SELECT DISTINCT app_id, tapwire_utc_day(event_time) FROM staging_events)
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3
ON CONFLICT (app_id, day, category) DO UPDATE SET
    strata = EXCLUDED.strata, excluded_delivered = EXCLUDED.excluded_delivered, weights = EXCLUDED.weights,
    numerator = EXCLUDED.numerator, p = EXCLUDED.p, q = EXCLUDED.q, null_sum = EXCLUDED.null_sum, deviation = EXCLUDED.deviation,
    used_rich_delivered = EXCLUDED.used_rich_delivered, used_rich_engaged = EXCLUDED.used_rich_engaged,
    used_text_delivered = EXCLUDED.used_text_delivered, used_text_engaged = EXCLUDED.used_text_engaged,
    both_rich_delivered = EXCLUDED.both_rich_delivered, both_rich_engaged = EXCLUDED.both_rich_engaged,
    both_text_delivered = EXCLUDED.both_text_delivered, both_text_engaged = EXCLUDED.both_text_engaged,
    not_meaningful_delivered = EXCLUDED.not_meaningful_delivered, engaged_without_deliveries = EXCLUDED.engaged_without_deliveries
