-- 0308: the uplift insert planned once per session (issue 35; docs/outcomes.md, "What the round's
-- fold waits for; the uplift insert planned once"). tapwire_conversion_uplift_add's INSERT INTO
-- rollup_conversion_uplift_days inlines tapwire_uplift_terms four times: 20-35 ms to plan, more
-- than it takes to run on a fold's few changes. Its one parameter is p_app, so PL/pgSQL's plan
-- cache made custom plans for a session's first five calls and then kept the generic plan only if
-- it cost less than their average. Its two callers run it under different settings:
-- tapwire_conversion_uplift_delivered under the server's, tapwire_attribute_pending under
-- enable_seqscan = off, which prices the scan of the scratch table at 10^10. A generic plan made in
-- the second kind of call then cost more than the average of custom plans that include the first
-- kind, and every later call was planned again (one bench round: 15 plans for 14 calls, 300 ms of
-- its 776). The plan does not depend on p_app (a constant of the rows inserted and of their
-- conflict key; the scratch table is read whole), so the generic plan is forced: made on a
-- session's first call, kept until an invalidation. Nothing else changed (0303's text). Same
-- signature: older collectors run it. Not on Citus, which makes no distributed plan of that generic
-- plan: sql/citus/0308_conversion_uplift_add_generic_plan.sql leaves the function as 0303 made it.
CREATE OR REPLACE FUNCTION tapwire_conversion_uplift_add(p_app bigint) RETURNS void
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
    INSERT INTO rollup_conversion_uplift_days AS t (app_id, day, category, name, currency,
        strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation, used_rich_delivered, used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged, both_text_delivered, both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
    SELECT p_app, k.day, k.category, k.name, k.currency,
           sum(a.strata - b.strata - CASE WHEN k.same THEN 0 ELSE za.strata - zb.strata END),
           sum(a.excluded_delivered - b.excluded_delivered - CASE WHEN k.same THEN 0 ELSE za.excluded_delivered - zb.excluded_delivered END),
           sum(a.weights - b.weights - CASE WHEN k.same THEN 0 ELSE za.weights - zb.weights END),
           sum(a.numerator - b.numerator - CASE WHEN k.same THEN 0 ELSE za.numerator - zb.numerator END),
           sum(a.p - b.p - CASE WHEN k.same THEN 0 ELSE za.p - zb.p END),
           sum(a.q - b.q - CASE WHEN k.same THEN 0 ELSE za.q - zb.q END),
           sum(a.null_sum - b.null_sum - CASE WHEN k.same THEN 0 ELSE za.null_sum - zb.null_sum END),
           sum(a.deviation - b.deviation - CASE WHEN k.same THEN 0 ELSE za.deviation - zb.deviation END),
           sum(a.used_rich_delivered - b.used_rich_delivered - CASE WHEN k.same THEN 0 ELSE za.used_rich_delivered - zb.used_rich_delivered END),
           sum(a.used_rich_engaged - b.used_rich_engaged - CASE WHEN k.same THEN 0 ELSE za.used_rich_engaged - zb.used_rich_engaged END),
           sum(a.used_text_delivered - b.used_text_delivered - CASE WHEN k.same THEN 0 ELSE za.used_text_delivered - zb.used_text_delivered END),
           sum(a.used_text_engaged - b.used_text_engaged - CASE WHEN k.same THEN 0 ELSE za.used_text_engaged - zb.used_text_engaged END),
           sum(a.both_rich_delivered - b.both_rich_delivered - CASE WHEN k.same THEN 0 ELSE za.both_rich_delivered - zb.both_rich_delivered END),
           sum(a.both_rich_engaged - b.both_rich_engaged - CASE WHEN k.same THEN 0 ELSE za.both_rich_engaged - zb.both_rich_engaged END),
           sum(a.both_text_delivered - b.both_text_delivered - CASE WHEN k.same THEN 0 ELSE za.both_text_delivered - zb.both_text_delivered END),
           sum(a.both_text_engaged - b.both_text_engaged - CASE WHEN k.same THEN 0 ELSE za.both_text_engaged - zb.both_text_engaged END),
           sum(a.not_meaningful_delivered - b.not_meaningful_delivered - CASE WHEN k.same THEN 0 ELSE za.not_meaningful_delivered - zb.not_meaningful_delivered END),
           sum(a.engaged_without_deliveries - b.engaged_without_deliveries - CASE WHEN k.same THEN 0 ELSE za.engaged_without_deliveries - zb.engaged_without_deliveries END)
    FROM (SELECT c.*, c.rich_delivered_after = c.rich_delivered_before AND c.text_delivered_after = c.text_delivered_before AS same
          FROM tapwire_conversion_uplift_change c) k
    CROSS JOIN LATERAL tapwire_uplift_terms(k.rich_delivered_after, k.rich_converted_after, k.text_delivered_after,
                                            k.text_converted_after) a
    CROSS JOIN LATERAL tapwire_uplift_terms(k.rich_delivered_before, k.rich_converted_before, k.text_delivered_before,
                                            k.text_converted_before) b
    -- The terms of (delivered, 0), after and before: inlined like the two above, so their
    -- expressions are only evaluated where a CASE above asks for them (the delivered changed).
    CROSS JOIN LATERAL tapwire_uplift_terms(k.rich_delivered_after, 0, k.text_delivered_after, 0) za
    CROSS JOIN LATERAL tapwire_uplift_terms(k.rich_delivered_before, 0, k.text_delivered_before, 0) zb
    GROUP BY k.day, k.category, k.name, k.currency
    ORDER BY 2, 3, 4, 5
    ON CONFLICT (app_id, day, category, name, currency) DO UPDATE SET
        strata = t.strata + EXCLUDED.strata,
        excluded_delivered = t.excluded_delivered + EXCLUDED.excluded_delivered,
        weights = t.weights + EXCLUDED.weights,
        numerator = t.numerator + EXCLUDED.numerator,
        p = t.p + EXCLUDED.p,
        q = t.q + EXCLUDED.q,
        null_sum = t.null_sum + EXCLUDED.null_sum,
        deviation = t.deviation + EXCLUDED.deviation,
        used_rich_delivered = t.used_rich_delivered + EXCLUDED.used_rich_delivered,
        used_rich_engaged = t.used_rich_engaged + EXCLUDED.used_rich_engaged,
        used_text_delivered = t.used_text_delivered + EXCLUDED.used_text_delivered,
        used_text_engaged = t.used_text_engaged + EXCLUDED.used_text_engaged,
        both_rich_delivered = t.both_rich_delivered + EXCLUDED.both_rich_delivered,
        both_rich_engaged = t.both_rich_engaged + EXCLUDED.both_rich_engaged,
        both_text_delivered = t.both_text_delivered + EXCLUDED.both_text_delivered,
        both_text_engaged = t.both_text_engaged + EXCLUDED.both_text_engaged,
        not_meaningful_delivered = t.not_meaningful_delivered + EXCLUDED.not_meaningful_delivered,
        engaged_without_deliveries = t.engaged_without_deliveries + EXCLUDED.engaged_without_deliveries;
    DELETE FROM tapwire_conversion_uplift_change;
END
$fn$;
