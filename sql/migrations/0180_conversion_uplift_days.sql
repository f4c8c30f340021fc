-- 0180: rich vs text-only on conversion kept as it changes, as engagement's is (docs/reports.md,
-- "What conversions cost").
--
-- The Mantel–Haenszel sums on conversion (sql/queries/report_conversion_uplift.sql) are, per
-- category, UTC day and conversion name, the terms (tapwire_uplift_terms) of every stratum of
-- rollup_strata (campaign × platform × day) with the stratum's notifications converted to the
-- name (rollup_conversion_strata) in place of engaged. A stratum where the name did not convert
-- adds the terms of (delivered, 0), the same for every name. So two tables keep the sums:
--   rollup_conversion_base_days    per category and day, every stratum's terms of (delivered, 0),
--                                  kept by the fold as rollup_uplift_days is;
--   rollup_conversion_uplift_days  per category, day, name and currency, over the strata where
--                                  the name converted, what its conversions add to those terms
--                                  (tapwire_conversion_terms);
-- and a report adds, per name, the base of each category's day and the name's row: a few rows per
-- category, name and day, whatever the number of strata.
--
-- A stratum's converted counts change in attribution (tapwire_attribute_pending, under its lock
-- of the app), its delivered in the fold (under the stratum's row lock, no lock of the app). A
-- name's row must meet both, so:
--   * the fold queues each change of a stratum's delivered, before and after
--     (conversion_strata_pending), and tapwire_conversion_uplift_delivered applies an app's queue
--     under attribution's lock, against the converted counts stored then; the collector calls it
--     in the fold's transaction, before the app's attribution (TapwireStore/RollupStore.swift);
--   * attribution applies a change of converted counts (tapwire_conversion_uplift_converted)
--     against the delivered the rows already account for: the stratum's stored delivered less its
--     changes still queued.
-- Each change of either count is then added once, against the other count as already applied, so
-- the sums telescope to the terms of the counts stored, whatever the order and however folds
-- interleave; the terms are exact decimals (20 places), so the sums equal a recomputation digit for
-- digit. `tapwire rollups rebuild` queues the change of each stratum it deletes (to zero) and
-- recomputes (from zero), and deletes the base of its days, which the recompute adds back.

-- Folds and attribution wait until this migration commits, and then run the functions below: no
-- change of a stratum falls between the sums made here and the functions that keep them.
LOCK TABLE rollup_strata, rollup_conversion_strata IN EXCLUSIVE MODE;

-- Both hold the columns of rollup_uplift_days (migration 0150), the sums of tapwire_uplift_terms.
CREATE TABLE rollup_conversion_base_days (LIKE rollup_uplift_days INCLUDING DEFAULTS, PRIMARY KEY (app_id, day, category));
CREATE TABLE rollup_conversion_uplift_days (
    LIKE rollup_uplift_days INCLUDING DEFAULTS,
    name     text NOT NULL,
    currency text NOT NULL,
    PRIMARY KEY (app_id, day, category, name, currency)
);

-- Changes of a stratum's delivered not yet added to the names converted in it.
CREATE TABLE conversion_strata_pending (
    app_id      bigint      NOT NULL,
    day         timestamptz NOT NULL,
    category    text        NOT NULL,
    campaign    text        NOT NULL,
    platform    text        NOT NULL,
    rich_before bigint      NOT NULL,
    text_before bigint      NOT NULL,
    rich_after  bigint      NOT NULL,
    text_after  bigint      NOT NULL
);
CREATE INDEX conversion_strata_pending_by_stratum ON conversion_strata_pending (app_id, day, category, campaign, platform);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('rollup_conversion_base_days', 'distributed', 'report rollup, co-located with its strata'),
    ('rollup_conversion_uplift_days', 'distributed', 'report rollup, co-located with its strata'),
    ('conversion_strata_pending', 'distributed', 'report rollup queue, co-located with its strata');
SELECT tapwire_apply_citus_layout();

-- What the conversions to one name in one stratum add to its terms of (delivered, 0): its terms
-- with the converted in place of engaged, less those. Inlined like tapwire_uplift_terms.
CREATE FUNCTION tapwire_conversion_terms(rich_delivered bigint, rich_converted bigint, text_delivered bigint, text_converted bigint)
RETURNS SETOF tapwire_uplift_term
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1
AS $fn$
    SELECT t.strata - z.strata, t.excluded_delivered - z.excluded_delivered, t.weights - z.weights,
           t.numerator - z.numerator, t.p - z.p, t.q - z.q, t.null_sum - z.null_sum, t.deviation - z.deviation,
           t.used_rich_delivered - z.used_rich_delivered, t.used_rich_engaged - z.used_rich_engaged,
           t.used_text_delivered - z.used_text_delivered, t.used_text_engaged - z.used_text_engaged,
           t.both_rich_delivered - z.both_rich_delivered, t.both_rich_engaged - z.both_rich_engaged,
           t.both_text_delivered - z.both_text_delivered, t.both_text_engaged - z.both_text_engaged,
           t.not_meaningful_delivered - z.not_meaningful_delivered,
           t.engaged_without_deliveries - z.engaged_without_deliveries
    FROM tapwire_uplift_terms(rich_delivered, rich_converted, text_delivered, text_converted) t,
         tapwire_uplift_terms(rich_delivered, 0, text_delivered, 0) z
$fn$;

-- The fold of 0150, which also keeps rollup_conversion_base_days and queues the changes of
-- delivered (the two CTEs marked 0180); the rest is unchanged.
CREATE OR REPLACE FUNCTION tapwire_fold_rollups() RETURNS bigint
LANGUAGE plpgsql SET enable_nestloop = off AS $fn$
DECLARE
    moved bigint;
BEGIN
    -- Every report folds first, and most find nothing to fold: planning the statement below costs
    -- milliseconds, a probe of an empty table microseconds. Rows another transaction has not
    -- committed yet are invisible to both alike; that transaction folds its own. (A select list,
    -- even a constant one: Citus cannot send a query with none to its workers.)
    IF NOT EXISTS (SELECT 1 FROM rollup_deltas) THEN
        RETURN 0;
    END IF;
    WITH pending AS (
        DELETE FROM rollup_deltas WHERE kind IN (4, 5) OR kind >= 11 RETURNING *
    ), totals AS (
        INSERT INTO rollup_totals AS t (app_id, grain, bucket, category, has_media, delivered, sent, media_requested, opens,
                                        dismissals, actions, replies)
        SELECT app_id, grain, bucket, category, has_media, n1, n2, n3, n4, n5, n6, n7
        FROM pending WHERE kind = 11
        ORDER BY app_id, grain, bucket, category, has_media
        ON CONFLICT (app_id, grain, bucket, category, has_media) DO UPDATE SET
            delivered = t.delivered + EXCLUDED.delivered, sent = t.sent + EXCLUDED.sent,
            media_requested = t.media_requested + EXCLUDED.media_requested, opens = t.opens + EXCLUDED.opens,
            dismissals = t.dismissals + EXCLUDED.dismissals, actions = t.actions + EXCLUDED.actions,
            replies = t.replies + EXCLUDED.replies
    ), total_actions AS (
        INSERT INTO rollup_total_actions AS t (app_id, grain, bucket, category, action, n)
        SELECT app_id, grain, bucket, category, action, n1
        FROM pending WHERE kind = 12
        ORDER BY app_id, grain, bucket, category, action
        ON CONFLICT (app_id, grain, bucket, category, action) DO UPDATE SET n = t.n + EXCLUDED.n
    ), total_histograms AS (
        INSERT INTO rollup_total_histograms AS t (app_id, grain, bucket, category, metric, bins, counts)
        SELECT app_id, grain, bucket, category, metric, bins, a1
        FROM pending WHERE kind = 13
        ORDER BY app_id, grain, bucket, category, metric
        ON CONFLICT (app_id, grain, bucket, category, metric) DO UPDATE SET
            (bins, counts) = (SELECT m.bins, m.counts FROM tapwire_merge_bins(t.bins, t.counts, EXCLUDED.bins, EXCLUDED.counts) m)
    ), trend AS (
        INSERT INTO rollup_trend AS t (app_id, day, category, delivered_running, engaged_running)
        SELECT app_id, bucket, category, tapwire_running_slots(first_slot, a1), tapwire_running_slots(first_slot, a2)
        FROM pending WHERE kind = 14
        ORDER BY app_id, bucket, category
        ON CONFLICT (app_id, day, category) DO UPDATE SET
            delivered_running = tapwire_add_hour_counts(t.delivered_running, EXCLUDED.delivered_running),
            engaged_running = tapwire_add_hour_counts(t.engaged_running, EXCLUDED.engaged_running)
    ), dismiss_base AS (
        INSERT INTO rollup_dismiss_base AS t (app_id, grain, bucket, category, app_version, delivered, dismissals)
        SELECT app_id, grain, bucket, category, app_version, n1, n2
        FROM pending WHERE kind = 15
        ORDER BY app_id, grain, bucket, category, app_version
        ON CONFLICT (app_id, grain, bucket, category, app_version) DO UPDATE SET
            delivered = t.delivered + EXCLUDED.delivered, dismissals = t.dismissals + EXCLUDED.dismissals
    ), dismiss_quarters AS (
        INSERT INTO rollup_dismiss_quarters AS t (app_id, day, category, app_version, delivered_running, dismissals_running)
        SELECT app_id, bucket, category, app_version, tapwire_running_slots(first_slot, a1), tapwire_running_slots(first_slot, a2)
        FROM pending WHERE kind = 20
        ORDER BY app_id, bucket, category, app_version
        ON CONFLICT (app_id, day, category, app_version) DO UPDATE SET
            delivered_running = tapwire_add_hour_counts(t.delivered_running, EXCLUDED.delivered_running),
            dismissals_running = tapwire_add_hour_counts(t.dismissals_running, EXCLUDED.dismissals_running)
    ), strata_changes AS (
        SELECT app_id, bucket AS day, category, campaign, platform,
               n1 AS rich_delivered, n2 AS rich_engaged, n3 AS text_delivered, n4 AS text_engaged
        FROM pending WHERE kind = 16
    ), strata AS (
        INSERT INTO rollup_strata AS t (app_id, day, category, campaign, platform, rich_delivered, rich_engaged,
                                        text_delivered, text_engaged)
        SELECT app_id, day, category, campaign, platform, rich_delivered, rich_engaged, text_delivered, text_engaged
        FROM strata_changes
        ORDER BY app_id, day, category, campaign, platform
        ON CONFLICT (app_id, day, category, campaign, platform) DO UPDATE SET
            rich_delivered = t.rich_delivered + EXCLUDED.rich_delivered, rich_engaged = t.rich_engaged + EXCLUDED.rich_engaged,
            text_delivered = t.text_delivered + EXCLUDED.text_delivered, text_engaged = t.text_engaged + EXCLUDED.text_engaged
        RETURNING t.app_id, t.day, t.category, t.campaign, t.platform, t.rich_delivered, t.rich_engaged, t.text_delivered, t.text_engaged
    ), uplift AS (
        INSERT INTO rollup_uplift_days AS t (app_id, day, category, strata, excluded_delivered, weights, numerator, p, q, null_sum,
            deviation, used_rich_delivered, used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered,
            both_rich_engaged, both_text_delivered, both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
        SELECT s.app_id, s.day, s.category, sum(n.strata - o.strata), sum(n.excluded_delivered - o.excluded_delivered),
            sum(n.weights - o.weights), sum(n.numerator - o.numerator), sum(n.p - o.p), sum(n.q - o.q),
            sum(n.null_sum - o.null_sum), sum(n.deviation - o.deviation),
            sum(n.used_rich_delivered - o.used_rich_delivered), sum(n.used_rich_engaged - o.used_rich_engaged),
            sum(n.used_text_delivered - o.used_text_delivered), sum(n.used_text_engaged - o.used_text_engaged),
            sum(n.both_rich_delivered - o.both_rich_delivered), sum(n.both_rich_engaged - o.both_rich_engaged),
            sum(n.both_text_delivered - o.both_text_delivered), sum(n.both_text_engaged - o.both_text_engaged),
            sum(n.not_meaningful_delivered - o.not_meaningful_delivered),
            sum(n.engaged_without_deliveries - o.engaged_without_deliveries)
        FROM strata s
        JOIN strata_changes c USING (app_id, day, category, campaign, platform)
        CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, s.rich_engaged, s.text_delivered, s.text_engaged) n
        CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered - c.rich_delivered, s.rich_engaged - c.rich_engaged,
                                                s.text_delivered - c.text_delivered, s.text_engaged - c.text_engaged) o
        GROUP BY s.app_id, s.day, s.category
        ORDER BY 1, 2, 3
        ON CONFLICT (app_id, day, category) DO UPDATE SET
            strata = t.strata + EXCLUDED.strata, excluded_delivered = t.excluded_delivered + EXCLUDED.excluded_delivered,
            weights = t.weights + EXCLUDED.weights, numerator = t.numerator + EXCLUDED.numerator, p = t.p + EXCLUDED.p,
            q = t.q + EXCLUDED.q, null_sum = t.null_sum + EXCLUDED.null_sum, deviation = t.deviation + EXCLUDED.deviation,
            used_rich_delivered = t.used_rich_delivered + EXCLUDED.used_rich_delivered,
            used_rich_engaged = t.used_rich_engaged + EXCLUDED.used_rich_engaged,
            used_text_delivered = t.used_text_delivered + EXCLUDED.used_text_delivered,
            used_text_engaged = t.used_text_engaged + EXCLUDED.used_text_engaged,
            both_rich_delivered = t.both_rich_delivered + EXCLUDED.both_rich_delivered,
            both_rich_engaged = t.both_rich_engaged + EXCLUDED.both_rich_engaged,
            both_text_delivered = t.both_text_delivered + EXCLUDED.both_text_delivered,
            both_text_engaged = t.both_text_engaged + EXCLUDED.both_text_engaged,
            not_meaningful_delivered = t.not_meaningful_delivered + EXCLUDED.not_meaningful_delivered,
            engaged_without_deliveries = t.engaged_without_deliveries + EXCLUDED.engaged_without_deliveries
    ), conversion_base AS (
        -- Migration 0180: the same change of each stratum whose delivered changed, its terms taken as
        -- if nothing had converted (the base of rich vs text-only on conversion), and the change
        -- queued for the conversions converted in the stratum (tapwire_conversion_uplift_delivered).
        INSERT INTO rollup_conversion_base_days AS t (app_id, day, category,
            strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation, used_rich_delivered,
            used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged,
            both_text_delivered, both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
        SELECT s.app_id, s.day, s.category,
            sum(n.strata - o.strata), sum(n.excluded_delivered - o.excluded_delivered), sum(n.weights - o.weights),
            sum(n.numerator - o.numerator), sum(n.p - o.p), sum(n.q - o.q), sum(n.null_sum - o.null_sum),
            sum(n.deviation - o.deviation), sum(n.used_rich_delivered - o.used_rich_delivered),
            sum(n.used_rich_engaged - o.used_rich_engaged), sum(n.used_text_delivered - o.used_text_delivered),
            sum(n.used_text_engaged - o.used_text_engaged), sum(n.both_rich_delivered - o.both_rich_delivered),
            sum(n.both_rich_engaged - o.both_rich_engaged), sum(n.both_text_delivered - o.both_text_delivered),
            sum(n.both_text_engaged - o.both_text_engaged),
            sum(n.not_meaningful_delivered - o.not_meaningful_delivered),
            sum(n.engaged_without_deliveries - o.engaged_without_deliveries)
        FROM strata s
        JOIN strata_changes c USING (app_id, day, category, campaign, platform)
        CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, 0, s.text_delivered, 0) n
        CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered - c.rich_delivered, 0, s.text_delivered - c.text_delivered, 0) o
        WHERE c.rich_delivered <> 0 OR c.text_delivered <> 0
        GROUP BY s.app_id, s.day, s.category
        ORDER BY 1, 2, 3
        ON CONFLICT (app_id, day, category) DO UPDATE SET
            strata = t.strata + EXCLUDED.strata,
            excluded_delivered = t.excluded_delivered + EXCLUDED.excluded_delivered,
            weights = t.weights + EXCLUDED.weights, numerator = t.numerator + EXCLUDED.numerator,
            p = t.p + EXCLUDED.p, q = t.q + EXCLUDED.q, null_sum = t.null_sum + EXCLUDED.null_sum,
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
            engaged_without_deliveries = t.engaged_without_deliveries + EXCLUDED.engaged_without_deliveries
    ), conversion_delivered AS (
        INSERT INTO conversion_strata_pending (app_id, day, category, campaign, platform, rich_before, text_before,
                                               rich_after, text_after)
        SELECT s.app_id, s.day, s.category, s.campaign, s.platform, s.rich_delivered - c.rich_delivered,
               s.text_delivered - c.text_delivered, s.rich_delivered, s.text_delivered
        FROM strata s
        JOIN strata_changes c USING (app_id, day, category, campaign, platform)
        WHERE c.rich_delivered <> 0 OR c.text_delivered <> 0
    ), marginals AS (
        INSERT INTO rollup_marginals AS t (app_id, day, dimension, value, category, has_media, delivered, sent, opens, actions)
        SELECT app_id, bucket, dimension, value, category, has_media, n1, n2, n3, n4
        FROM pending WHERE kind = 17
        ORDER BY app_id, bucket, dimension, value, category, has_media
        ON CONFLICT (app_id, day, dimension, value, category, has_media) DO UPDATE SET
            delivered = t.delivered + EXCLUDED.delivered, sent = t.sent + EXCLUDED.sent,
            opens = t.opens + EXCLUDED.opens, actions = t.actions + EXCLUDED.actions
    ), hourly AS (
        INSERT INTO mismatch_usage_hourly AS u (app_id, bucket, app_version, platform, type, category, action,
                                                category_registered, event_count, first_seen, last_seen)
        SELECT app_id, bucket, app_version, platform, type, category, action, category_registered,
               sum(n1), min(first_seen), max(last_seen)
        FROM pending WHERE kind = 4
        GROUP BY app_id, bucket, app_version, platform, type, category, action, category_registered
        ORDER BY app_id, bucket, app_version, platform, type, category, action, category_registered
        ON CONFLICT (app_id, bucket, app_version, platform, type, category, action, category_registered)
        DO UPDATE SET event_count = u.event_count + EXCLUDED.event_count,
                      first_seen = LEAST(u.first_seen, EXCLUDED.first_seen),
                      last_seen = GREATEST(u.last_seen, EXCLUDED.last_seen)
    ), daily AS (
        INSERT INTO mismatch_usage_daily AS u (app_id, day, app_version, platform, type, category, action,
                                               category_registered, event_count, first_seen, last_seen)
        SELECT app_id, (bucket AT TIME ZONE 'UTC')::date, app_version, platform, type, category, action, category_registered,
               sum(n1), min(first_seen), max(last_seen)
        FROM pending WHERE kind = 5
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
        ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
        ON CONFLICT (app_id, day, app_version, platform, type, category, action, category_registered)
        DO UPDATE SET event_count = u.event_count + EXCLUDED.event_count,
                      first_seen = LEAST(u.first_seen, EXCLUDED.first_seen),
                      last_seen = GREATEST(u.last_seen, EXCLUDED.last_seen)
    ), release_counts AS (
        INSERT INTO rollup_release_counts AS t (app_id, day, category, app_version, platform, delivered, opens, dismissals, replies)
        SELECT app_id, bucket, category, app_version, platform, tapwire_hour_slots(first_slot, a1), tapwire_hour_slots(first_slot, a2),
               tapwire_hour_slots(first_slot, a3), tapwire_hour_slots(first_slot, a4)
        FROM pending WHERE kind = 18
        ORDER BY app_id, bucket, category, app_version, platform
        ON CONFLICT (app_id, day, category, app_version, platform) DO UPDATE SET
            delivered = tapwire_add_hour_counts(t.delivered, EXCLUDED.delivered),
            opens = tapwire_add_hour_counts(t.opens, EXCLUDED.opens),
            dismissals = tapwire_add_hour_counts(t.dismissals, EXCLUDED.dismissals),
            replies = tapwire_add_hour_counts(t.replies, EXCLUDED.replies)
    ), release_actions AS (
        INSERT INTO rollup_release_actions AS t (app_id, day, category, app_version, platform, action, n)
        SELECT app_id, bucket, category, app_version, platform, action, tapwire_hour_slots(first_slot, a1)
        FROM pending WHERE kind = 19
        ORDER BY app_id, bucket, category, app_version, platform, action
        ON CONFLICT (app_id, day, category, app_version, platform, action) DO UPDATE SET
            n = tapwire_add_hour_counts(t.n, EXCLUDED.n)
    )
    SELECT count(*) INTO moved FROM pending;
    RETURN moved;
END
$fn$;

-- Adds to app `p_app`'s names what the changes in the caller's scratch table
-- tapwire_conversion_uplift_change (a stratum's counts of one name, before and after) change in
-- their terms, and empties it: the one writer of rollup_conversion_uplift_days after this
-- migration's first sums, for the two functions below.
CREATE FUNCTION tapwire_conversion_uplift_add(p_app bigint) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
    INSERT INTO rollup_conversion_uplift_days AS t (app_id, day, category, name, currency,
        strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation, used_rich_delivered,
        used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged,
        both_text_delivered, both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
    SELECT p_app, k.day, k.category, k.name, k.currency,
           sum(a.strata - b.strata), sum(a.excluded_delivered - b.excluded_delivered), sum(a.weights - b.weights),
           sum(a.numerator - b.numerator), sum(a.p - b.p), sum(a.q - b.q), sum(a.null_sum - b.null_sum),
           sum(a.deviation - b.deviation), sum(a.used_rich_delivered - b.used_rich_delivered),
           sum(a.used_rich_engaged - b.used_rich_engaged), sum(a.used_text_delivered - b.used_text_delivered),
           sum(a.used_text_engaged - b.used_text_engaged), sum(a.both_rich_delivered - b.both_rich_delivered),
           sum(a.both_rich_engaged - b.both_rich_engaged), sum(a.both_text_delivered - b.both_text_delivered),
           sum(a.both_text_engaged - b.both_text_engaged),
           sum(a.not_meaningful_delivered - b.not_meaningful_delivered),
           sum(a.engaged_without_deliveries - b.engaged_without_deliveries)
    FROM tapwire_conversion_uplift_change k
    CROSS JOIN LATERAL tapwire_conversion_terms(k.rich_delivered_after, k.rich_converted_after, k.text_delivered_after,
                                                k.text_converted_after) a
    CROSS JOIN LATERAL tapwire_conversion_terms(k.rich_delivered_before, k.rich_converted_before, k.text_delivered_before,
                                                k.text_converted_before) b
    GROUP BY k.day, k.category, k.name, k.currency
    ORDER BY 2, 3, 4, 5
    ON CONFLICT (app_id, day, category, name, currency) DO UPDATE SET
        strata = t.strata + EXCLUDED.strata, excluded_delivered = t.excluded_delivered + EXCLUDED.excluded_delivered,
        weights = t.weights + EXCLUDED.weights, numerator = t.numerator + EXCLUDED.numerator, p = t.p + EXCLUDED.p,
        q = t.q + EXCLUDED.q, null_sum = t.null_sum + EXCLUDED.null_sum, deviation = t.deviation + EXCLUDED.deviation,
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

-- The scratch table of tapwire_conversion_uplift_add, made for the session when first needed.
CREATE FUNCTION tapwire_conversion_uplift_scratch() RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
    IF to_regclass('pg_temp.tapwire_conversion_uplift_change') IS NULL THEN
        CREATE TEMP TABLE tapwire_conversion_uplift_change (
            day timestamptz, category text, name text, currency text,
            rich_delivered_before bigint, rich_converted_before bigint, text_delivered_before bigint, text_converted_before bigint,
            rich_delivered_after bigint, rich_converted_after bigint, text_delivered_after bigint, text_converted_after bigint
        ) ON COMMIT DELETE ROWS;
    END IF;
END
$fn$;

-- Adds the queued changes of delivered of app `p_app` to the names converted in their strata,
-- against the converted counts stored now, under attribution's lock of the app; returns how many
-- changes it took. Each stratum is read through its index (OFFSET 0: the planner cannot know
-- how few changes there are).
CREATE FUNCTION tapwire_conversion_uplift_delivered(p_app bigint) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_taken bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(7358161, hashint8(p_app));
    PERFORM tapwire_conversion_uplift_scratch();
    WITH taken AS (
        DELETE FROM conversion_strata_pending WHERE app_id = p_app
        RETURNING day, category, campaign, platform, rich_before, text_before, rich_after, text_after
    ), changed AS (
        INSERT INTO tapwire_conversion_uplift_change
        SELECT q.day, q.category, c.name, c.currency, q.rich_before, c.rich_converted, q.text_before, c.text_converted,
               q.rich_after, c.rich_converted, q.text_after, c.text_converted
        FROM taken q
        CROSS JOIN LATERAL (
            SELECT c.name, c.currency, c.rich_converted, c.text_converted FROM rollup_conversion_strata c
            WHERE c.app_id = p_app AND c.day = q.day AND c.category = q.category AND c.campaign = q.campaign
              AND c.platform = q.platform
            OFFSET 0
        ) c
    )
    SELECT count(*) INTO v_taken FROM taken;
    PERFORM tapwire_conversion_uplift_add(p_app);
    RETURN v_taken;
END
$fn$;

-- Attribution's share, called by tapwire_attribute_pending (under its lock of the app) once it
-- has changed rollup_conversion_strata: adds the change of each converted stratum's counts
-- (tapwire_notification_change, the caller's scratch table of that app) against the delivered the
-- name's rows account for (the stratum's stored delivered less its changes still queued), and
-- drops the rows of a category's day no conversion to the name is left in.
CREATE FUNCTION tapwire_conversion_uplift_converted(p_app bigint) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM tapwire_conversion_uplift_scratch();
    WITH changed AS (
        SELECT tapwire_utc_day(touch_time) AS day, category, campaign, platform, name, currency,
               coalesce(sum(sign) FILTER (WHERE has_media), 0) AS rich_change,
               coalesce(sum(sign) FILTER (WHERE NOT has_media), 0) AS text_change
        FROM tapwire_notification_change
        GROUP BY 1, 2, 3, 4, 5, 6
    )
    INSERT INTO tapwire_conversion_uplift_change
    SELECT ch.day, ch.category, ch.name, ch.currency,
           d.rich, coalesce(c.rich_converted, 0) - ch.rich_change, d.text, coalesce(c.text_converted, 0) - ch.text_change,
           d.rich, coalesce(c.rich_converted, 0), d.text, coalesce(c.text_converted, 0)
    FROM changed ch
    LEFT JOIN LATERAL (
        SELECT c.rich_converted, c.text_converted FROM rollup_conversion_strata c
        WHERE c.app_id = p_app AND c.day = ch.day AND c.category = ch.category AND c.campaign = ch.campaign
          AND c.platform = ch.platform AND c.name = ch.name AND c.currency = ch.currency
        OFFSET 0
    ) c ON true
    CROSS JOIN LATERAL (
        SELECT (coalesce((SELECT s.rich_delivered FROM rollup_strata s
                          WHERE s.app_id = p_app AND s.day = ch.day AND s.category = ch.category
                            AND s.campaign = ch.campaign AND s.platform = ch.platform), 0)
                - coalesce(sum(q.rich_after - q.rich_before), 0))::bigint AS rich,
               (coalesce((SELECT s.text_delivered FROM rollup_strata s
                          WHERE s.app_id = p_app AND s.day = ch.day AND s.category = ch.category
                            AND s.campaign = ch.campaign AND s.platform = ch.platform), 0)
                - coalesce(sum(q.text_after - q.text_before), 0))::bigint AS text
        FROM conversion_strata_pending q
        WHERE q.app_id = p_app AND q.day = ch.day AND q.category = ch.category AND q.campaign = ch.campaign
          AND q.platform = ch.platform
    ) d
    WHERE ch.rich_change <> 0 OR ch.text_change <> 0;
    PERFORM tapwire_conversion_uplift_add(p_app);

    DELETE FROM rollup_conversion_uplift_days t
    WHERE t.app_id = p_app
      AND (t.day, t.category, t.name, t.currency) IN (SELECT tapwire_utc_day(touch_time), category, name, currency
                                                      FROM tapwire_notification_change)
      AND NOT EXISTS (SELECT 1 FROM rollup_conversion_strata c
                      WHERE c.app_id = p_app AND c.day = t.day AND c.category = t.category AND c.name = t.name
                        AND c.currency = t.currency);
END
$fn$;

-- Attribution of 0161, which now also calls tapwire_conversion_uplift_converted (the one line
-- marked 0180, before its return); the rest is unchanged.
CREATE OR REPLACE FUNCTION tapwire_attribute_pending(p_app bigint) RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off AS $fn$
DECLARE
    v_direct    interval;
    v_influence interval;
    v_horizon   interval;
    v_changed   bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(7358161, hashint8(p_app));
    SELECT direct_window, influence_window INTO v_direct, v_influence FROM apps WHERE app_id = p_app;
    IF NOT FOUND THEN
        DELETE FROM attribution_pending WHERE app_id = p_app;
        RETURN 0;
    END IF;
    v_horizon := greatest(v_direct, v_influence);

    -- Scratch tables of this transaction (kept for the session, emptied at commit).
    CREATE TEMP TABLE IF NOT EXISTS tapwire_attribution_queue (
        device_id text, event_time timestamptz, converted boolean
    ) ON COMMIT DELETE ROWS;
    CREATE TEMP TABLE IF NOT EXISTS tapwire_attribution_span (
        device_id text, from_time timestamptz, to_time timestamptz, first_conversion timestamptz, last_conversion timestamptz
    ) ON COMMIT DELETE ROWS;
    CREATE TEMP TABLE IF NOT EXISTS tapwire_attribution_conversion (
        event_id uuid, event_time timestamptz, device_id text, notification_id text, name text, currency text, value numeric
    ) ON COMMIT DELETE ROWS;
    -- A device's events the rule reads: its taps and deliveries, and (until moved to the table
    -- above) its conversions, whose name then sits in action_identifier, with their currency and
    -- value, and whether a queued event can change their credit.
    CREATE TEMP TABLE IF NOT EXISTS tapwire_attribution_touch (
        device_id text, event_id uuid, event_time timestamptz, type event_type, engaged boolean, notification_key text,
        notification_id text, category text, has_media boolean, campaign text, platform text, action_identifier text,
        currency text, value float8, affected boolean
    ) ON COMMIT DELETE ROWS;
    CREATE TEMP TABLE IF NOT EXISTS tapwire_credit_change (
        sign smallint, event_id uuid, event_time timestamptz, device_id text, name text, currency text,
        value numeric, kind smallint, notification_key text, touch_time timestamptz, category text,
        has_media boolean, campaign text, platform text, action_identifier text
    ) ON COMMIT DELETE ROWS;
    TRUNCATE tapwire_attribution_queue, tapwire_attribution_span, tapwire_attribution_conversion, tapwire_attribution_touch, tapwire_credit_change;

    -- The queued events: an install id (NULL: a conversion posted without one), a time, and
    -- whether it is a conversion's.
    WITH taken AS (
        DELETE FROM attribution_pending WHERE app_id = p_app RETURNING device_ids, event_times, conversions
    )
    INSERT INTO tapwire_attribution_queue
    SELECT u.device_id, u.event_time, u.conversion
    FROM taken, unnest(taken.device_ids, taken.event_times, taken.conversions) AS u (device_id, event_time, conversion);

    -- Conversions without an install id: unattributed.
    INSERT INTO tapwire_credit_change
    SELECT 1, e.event_id, e.event_time, NULL, e.conversion_name, coalesce(e.conversion_currency, ''),
           coalesce(e.conversion_value::numeric, 0), 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM (SELECT DISTINCT event_time FROM tapwire_attribution_queue WHERE device_id IS NULL AND converted) t
    CROSS JOIN LATERAL (
        SELECT e.* FROM events e
        WHERE e.app_id = p_app AND e.event_time = t.event_time AND e.type = 'conversion' AND e.device_id IS NULL
        OFFSET 0
    ) e;

    -- Each device, from its earliest queued time to its latest, and the span of its queued
    -- conversions.
    INSERT INTO tapwire_attribution_span
    SELECT device_id, min(event_time), max(event_time), min(event_time) FILTER (WHERE converted),
           max(event_time) FILTER (WHERE converted)
    FROM tapwire_attribution_queue
    WHERE device_id IS NOT NULL
    GROUP BY device_id;

    -- The devices that converted, and the span of their new conversions.
    INSERT INTO attribution_devices AS d (app_id, device_id, first_conversion, last_conversion)
    SELECT p_app, device_id, first_conversion, last_conversion FROM tapwire_attribution_span
    WHERE first_conversion IS NOT NULL
    ORDER BY device_id
    ON CONFLICT (app_id, device_id) DO UPDATE
        SET first_conversion = least(d.first_conversion, excluded.first_conversion),
            last_conversion = greatest(d.last_conversion, excluded.last_conversion);

    -- The conversions an event queued can change (of a device that converted, from the event's
    -- time to the longer window after it), and the taps and deliveries they can be credited to
    -- (the longer window before them): one read of events_by_device per such device, in the
    -- partitions of its range only (OFFSET 0 keeps the read per device: the planner cannot know
    -- how few devices there are, and would scan every conversion).
    INSERT INTO tapwire_attribution_touch
    SELECT e.device_id, e.event_id, e.event_time, e.type,
           e.type = 'response' AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier',
           CASE WHEN e.type = 'conversion' THEN NULL ELSE coalesce(e.notification_id, 'event:' || e.event_id::text) END,
           e.notification_id, e.category, e.has_media, coalesce(e.campaign, ''), e.platform,
           CASE WHEN e.type = 'conversion' THEN e.conversion_name ELSE e.action_identifier END,
           e.conversion_currency, e.conversion_value,
           e.type = 'conversion' AND e.event_time >= q.from_time AND e.event_time <= q.to_time + v_horizon
    FROM tapwire_attribution_span q
    CROSS JOIN LATERAL (
        SELECT d.* FROM attribution_devices d
        WHERE d.app_id = p_app AND d.device_id = q.device_id
          AND d.last_conversion >= q.from_time AND d.first_conversion <= q.to_time + v_horizon
        OFFSET 0
    ) d
    CROSS JOIN LATERAL (
        SELECT e.* FROM events e
        WHERE e.app_id = p_app AND e.device_id = q.device_id AND e.type IN ('delivered', 'response', 'conversion')
          AND e.event_time >= greatest(q.from_time, d.first_conversion) - v_horizon
          AND e.event_time <= least(q.to_time + v_horizon, d.last_conversion)
        OFFSET 0
    ) e;
    INSERT INTO tapwire_attribution_conversion
    SELECT event_id, event_time, device_id, notification_id, action_identifier, coalesce(currency, ''),
           coalesce(value::numeric, 0)
    FROM tapwire_attribution_touch WHERE affected;
    DELETE FROM tapwire_attribution_touch WHERE type = 'conversion';
    ANALYZE tapwire_attribution_conversion, tapwire_attribution_touch;

    -- The rule (docs/outcomes.md): the tap in the direct window (the named notification's first,
    -- then the latest), else the latest delivery in the influence window with no tap after it,
    -- else none. Ties go to the greater event id.
    INSERT INTO tapwire_credit_change
    WITH direct AS (
        SELECT DISTINCT ON (c.event_id) c.event_id, t.notification_key, t.event_time, t.category, t.has_media,
               t.campaign, t.platform, t.action_identifier
        FROM tapwire_attribution_conversion c
        JOIN tapwire_attribution_touch t ON t.device_id = c.device_id AND t.engaged
         AND t.event_time >= c.event_time - v_direct AND t.event_time <= c.event_time
        ORDER BY c.event_id, (c.notification_id IS NOT NULL AND t.notification_id IS NOT DISTINCT FROM c.notification_id) DESC,
                 t.event_time DESC, t.event_id DESC
    ), last_tap AS (
        SELECT c.event_id, max(t.event_time) AS at
        FROM tapwire_attribution_conversion c
        JOIN tapwire_attribution_touch t ON t.device_id = c.device_id AND t.engaged
         AND t.event_time >= c.event_time - v_influence AND t.event_time <= c.event_time
        GROUP BY c.event_id
    ), influenced AS (
        SELECT DISTINCT ON (c.event_id) c.event_id, t.notification_key, t.event_time, t.category, t.has_media,
               t.campaign, t.platform
        FROM tapwire_attribution_conversion c
        JOIN tapwire_attribution_touch t ON t.device_id = c.device_id AND t.type = 'delivered'
         AND t.event_time >= c.event_time - v_influence AND t.event_time <= c.event_time
        LEFT JOIN last_tap l ON l.event_id = c.event_id
        WHERE l.at IS NULL OR l.at <= t.event_time
        ORDER BY c.event_id, t.event_time DESC, t.event_id DESC
    )
    SELECT 1, c.event_id, c.event_time, c.device_id, c.name, c.currency, c.value,
           CASE WHEN d.event_id IS NOT NULL THEN 1 WHEN i.event_id IS NOT NULL THEN 2 ELSE 3 END,
           coalesce(d.notification_key, i.notification_key), coalesce(d.event_time, i.event_time),
           coalesce(d.category, i.category), coalesce(d.has_media, i.has_media), coalesce(d.campaign, i.campaign),
           coalesce(d.platform, i.platform), d.action_identifier
    FROM tapwire_attribution_conversion c
    LEFT JOIN direct d ON d.event_id = c.event_id
    LEFT JOIN influenced i ON i.event_id = c.event_id;

    -- Beside the credits stored: a credit unchanged appears once with each sign, and both go.
    INSERT INTO tapwire_credit_change
    SELECT -1, s.event_id, s.event_time, s.device_id, s.name, s.currency, s.value, s.kind, s.notification_key,
           s.touch_time, s.category, s.has_media, s.campaign, s.platform, s.action_identifier
    FROM conversion_credits s
    WHERE s.app_id = p_app AND s.event_id IN (SELECT event_id FROM tapwire_credit_change);
    DELETE FROM tapwire_credit_change x
    USING (SELECT event_id FROM tapwire_credit_change
           GROUP BY event_id, event_time, device_id, name, currency, value, kind, notification_key, touch_time,
                    category, has_media, campaign, platform, action_identifier
           HAVING count(*) = 2) same
    WHERE x.event_id = same.event_id;
    SELECT count(*) FILTER (WHERE sign = 1) INTO v_changed FROM tapwire_credit_change;
    ANALYZE tapwire_credit_change;
    IF v_changed = 0 THEN
        RETURN 0;
    END IF;

    -- The credits.
    DELETE FROM conversion_credits s
    WHERE s.app_id = p_app AND s.event_id IN (SELECT event_id FROM tapwire_credit_change WHERE sign = -1);
    INSERT INTO conversion_credits (app_id, event_id, event_time, device_id, name, currency, value, kind,
                                    notification_key, touch_time, category, has_media, campaign, platform, action_identifier)
    SELECT p_app, event_id, event_time, device_id, name, currency, value, kind, notification_key, touch_time,
           category, has_media, campaign, platform, action_identifier
    FROM tapwire_credit_change WHERE sign = 1;

    -- What each credit adds: every conversion by its day and kind, direct ones by action.
    INSERT INTO rollup_conversion_totals AS t (app_id, day, name, currency, kind, conversions, value_sum)
    SELECT p_app, tapwire_utc_day(event_time), name, currency, kind, sum(sign), sum(sign * value)
    FROM tapwire_credit_change
    GROUP BY 2, 3, 4, 5
    ORDER BY 2, 3, 4, 5
    ON CONFLICT (app_id, day, name, currency, kind) DO UPDATE
        SET conversions = t.conversions + excluded.conversions, value_sum = t.value_sum + excluded.value_sum;
    -- A key whose credits all moved away is no row, as if they had never come: the tables do
    -- not depend on the order events arrived in (so for each rollup below).
    DELETE FROM rollup_conversion_totals t
    WHERE t.app_id = p_app AND t.conversions = 0
      AND (t.day, t.name, t.currency, t.kind) IN (SELECT tapwire_utc_day(event_time), name, currency, kind FROM tapwire_credit_change);

    INSERT INTO rollup_conversion_actions AS t (app_id, day, category, action_identifier, name, direct)
    SELECT p_app, tapwire_utc_day(touch_time), category, action_identifier, name, sum(sign)
    FROM tapwire_credit_change
    WHERE kind = 1
    GROUP BY 2, 3, 4, 5
    ORDER BY 2, 3, 4, 5
    ON CONFLICT (app_id, day, category, action_identifier, name) DO UPDATE
        SET direct = t.direct + excluded.direct;
    DELETE FROM rollup_conversion_actions t
    WHERE t.app_id = p_app AND t.direct = 0
      AND (t.day, t.category, t.action_identifier, t.name) IN (SELECT tapwire_utc_day(touch_time), category, action_identifier, name
                                                               FROM tapwire_credit_change WHERE kind = 1);

    -- The notifications whose credits changed: their stored rows out (sign -1), their rows made
    -- again from the credits now stored in (sign 1).
    CREATE TEMP TABLE IF NOT EXISTS tapwire_notification_change (
        sign smallint, device_id text, notification_key text, name text, currency text, touch_time timestamptz,
        category text, has_media boolean, campaign text, platform text, first_kind smallint, direct bigint,
        influenced bigint, value numeric
    ) ON COMMIT DELETE ROWS;
    TRUNCATE tapwire_notification_change;

    WITH touched AS (
        SELECT DISTINCT device_id, notification_key, name, currency
        FROM tapwire_credit_change WHERE notification_key IS NOT NULL
    ), removed AS (
        DELETE FROM notification_conversions n
        USING touched k
        WHERE n.app_id = p_app AND n.device_id = k.device_id AND n.notification_key = k.notification_key
          AND n.name = k.name AND n.currency = k.currency
        RETURNING n.*
    )
    INSERT INTO tapwire_notification_change
    SELECT -1, device_id, notification_key, name, currency, touch_time, category, has_media, campaign, platform,
           first_kind, direct, influenced, value
    FROM removed;

    INSERT INTO tapwire_notification_change
    SELECT 1, s.device_id, s.notification_key, s.name, s.currency,
           (array_agg(s.touch_time ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.category ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.has_media ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.campaign ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.platform ORDER BY s.event_time, s.event_id))[1],
           (array_agg(s.kind ORDER BY s.event_time, s.event_id))[1],
           count(*) FILTER (WHERE s.kind = 1), count(*) FILTER (WHERE s.kind = 2), sum(s.value)
    FROM conversion_credits s
    JOIN (SELECT DISTINCT device_id, notification_key, name, currency
          FROM tapwire_credit_change WHERE notification_key IS NOT NULL) k
      ON s.device_id = k.device_id AND s.notification_key = k.notification_key AND s.name = k.name AND s.currency = k.currency
    WHERE s.app_id = p_app
    GROUP BY s.device_id, s.notification_key, s.name, s.currency;

    ANALYZE tapwire_notification_change;
    INSERT INTO notification_conversions (app_id, device_id, notification_key, name, currency, touch_time, category,
                                          has_media, campaign, platform, first_kind, direct, influenced, value)
    SELECT p_app, device_id, notification_key, name, currency, touch_time, category, has_media, campaign, platform,
           first_kind, direct, influenced, value
    FROM tapwire_notification_change WHERE sign = 1;

    INSERT INTO rollup_conversions AS t (app_id, day, category, has_media, name, currency, direct, influenced,
                                        converted, value_sum, value_sq, value_cube)
    SELECT p_app, tapwire_utc_day(touch_time), category, has_media, name, currency, sum(sign * direct),
           sum(sign * influenced), sum(sign), sum(sign * value), sum(sign * value * value), sum(sign * value * value * value)
    FROM tapwire_notification_change
    GROUP BY 2, 3, 4, 5, 6
    ORDER BY 2, 3, 4, 5, 6
    ON CONFLICT (app_id, day, category, has_media, name, currency) DO UPDATE
        SET direct = t.direct + excluded.direct, influenced = t.influenced + excluded.influenced,
            converted = t.converted + excluded.converted, value_sum = t.value_sum + excluded.value_sum,
            value_sq = t.value_sq + excluded.value_sq, value_cube = t.value_cube + excluded.value_cube;
    DELETE FROM rollup_conversions t
    WHERE t.app_id = p_app AND t.converted = 0
      AND (t.day, t.category, t.has_media, t.name, t.currency) IN (SELECT tapwire_utc_day(touch_time), category, has_media, name, currency
                                                                   FROM tapwire_notification_change);

    INSERT INTO rollup_conversion_strata AS t (app_id, day, category, campaign, platform, name, currency,
                                              rich_converted, text_converted)
    SELECT p_app, tapwire_utc_day(touch_time), category, campaign, platform, name, currency,
           coalesce(sum(sign) FILTER (WHERE has_media), 0), coalesce(sum(sign) FILTER (WHERE NOT has_media), 0)
    FROM tapwire_notification_change
    GROUP BY 2, 3, 4, 5, 6, 7
    ORDER BY 2, 3, 4, 5, 6, 7
    ON CONFLICT (app_id, day, category, campaign, platform, name, currency) DO UPDATE
        SET rich_converted = t.rich_converted + excluded.rich_converted,
            text_converted = t.text_converted + excluded.text_converted;
    DELETE FROM rollup_conversion_strata t
    WHERE t.app_id = p_app AND t.rich_converted = 0 AND t.text_converted = 0
      AND (t.day, t.category, t.campaign, t.platform, t.name, t.currency) IN (
          SELECT tapwire_utc_day(touch_time), category, campaign, platform, name, currency FROM tapwire_notification_change);
    -- Migration 0180: the change of the converted strata's terms (rich vs text-only on conversion).
    PERFORM tapwire_conversion_uplift_converted(p_app);
    RETURN v_changed;
END
$fn$;

-- What is already stored, summed into the new tables (under the lock taken above).
INSERT INTO rollup_conversion_base_days (app_id, day, category,
    strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation, used_rich_delivered, used_rich_engaged,
    used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged, both_text_delivered,
    both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
SELECT s.app_id, s.day, s.category,
       sum(t.strata), sum(t.excluded_delivered), sum(t.weights), sum(t.numerator), sum(t.p), sum(t.q),
       sum(t.null_sum), sum(t.deviation), sum(t.used_rich_delivered), sum(t.used_rich_engaged),
       sum(t.used_text_delivered), sum(t.used_text_engaged), sum(t.both_rich_delivered), sum(t.both_rich_engaged),
       sum(t.both_text_delivered), sum(t.both_text_engaged), sum(t.not_meaningful_delivered),
       sum(t.engaged_without_deliveries)
FROM rollup_strata s
CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, 0, s.text_delivered, 0) t
WHERE s.rich_delivered <> 0 OR s.text_delivered <> 0
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3;

INSERT INTO rollup_conversion_uplift_days (app_id, day, category, name, currency,
    strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation, used_rich_delivered, used_rich_engaged,
    used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged, both_text_delivered,
    both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
SELECT c.app_id, c.day, c.category, c.name, c.currency,
       sum(t.strata), sum(t.excluded_delivered), sum(t.weights), sum(t.numerator), sum(t.p), sum(t.q),
       sum(t.null_sum), sum(t.deviation), sum(t.used_rich_delivered), sum(t.used_rich_engaged),
       sum(t.used_text_delivered), sum(t.used_text_engaged), sum(t.both_rich_delivered), sum(t.both_rich_engaged),
       sum(t.both_text_delivered), sum(t.both_text_engaged), sum(t.not_meaningful_delivered),
       sum(t.engaged_without_deliveries)
FROM rollup_conversion_strata c
LEFT JOIN rollup_strata s USING (app_id, day, category, campaign, platform)
CROSS JOIN LATERAL tapwire_conversion_terms(coalesce(s.rich_delivered, 0), c.rich_converted, coalesce(s.text_delivered, 0),
                                            c.text_converted) t
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5;
