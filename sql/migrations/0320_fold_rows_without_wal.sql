-- 0320: the fold's rows go through an unlogged table, rollup_fold_rows, not through rollup_deltas
-- (issue 33; docs/ingestion.md, "The fold's rows without WAL").
--
-- A fold COPYs a row per key of every rollup table into rollup_deltas and tapwire_fold_rollups()
-- takes them back with DELETE … RETURNING in the same transaction: no row of it outlives the
-- transaction that wrote it, yet each was written to WAL twice (its insert, then its delete). At
-- the real shape that was 48 MB of WAL per 1M events, the largest single relation of the fold
-- (pg_walinspect over a run's LSN range; docs/benchmarks.md). 0313 did the same for the rebuild.
--
-- rollup_fold_rows has the columns of rollup_deltas and is UNLOGGED: nothing of it is written to
-- WAL, and after a crash or a failover it is empty, which is what every committed state of it
-- is. This collector COPYs its fold's rows there (sql/queries/copy_rollup_fold_rows.sql).
-- rollup_deltas stays, logged, for a collector of an earlier version, which stages its fold's
-- rows there (or, before 0060, commits its deltas there to be folded later): the fold below
-- takes the rows of both tables, so collectors of both versions can run side by side.
--
-- A hot standby can open no unlogged table, not even to plan a statement that names one, so the
-- function now returns at once during recovery: a standby cannot write, and it folded nothing
-- before either (a fold there found nothing, or failed as read-only and the reader read without
-- it: RollupStore.foldBeforeReading).

CREATE UNLOGGED TABLE rollup_fold_rows (LIKE rollup_deltas INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000,
      autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 20000);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('rollup_fold_rows', 'distributed', 'the fold''s rows, co-located with the rollups they are upserted into');
SELECT tapwire_apply_citus_layout();

-- The fold of 0301, which takes the rows of rollup_fold_rows beside those of rollup_deltas (the
-- lines marked 0320); the rest is unchanged.
CREATE OR REPLACE FUNCTION tapwire_fold_rollups() RETURNS bigint
LANGUAGE plpgsql SET enable_nestloop = off AS $fn$
DECLARE
    moved bigint;
BEGIN
    -- 0320: a standby can write nothing, and can open no unlogged table.
    IF pg_is_in_recovery() THEN
        RETURN 0;
    END IF;
    -- Every report folds first, and most find nothing to fold: planning the statement below costs
    -- milliseconds, a probe of an empty table microseconds. Rows another transaction has not
    -- committed yet are invisible to both alike; that transaction folds its own. (A select list,
    -- even a constant one: Citus cannot send a query with none to its workers.)
    IF NOT EXISTS (SELECT 1 FROM rollup_deltas) AND NOT EXISTS (SELECT 1 FROM rollup_fold_rows) THEN
        RETURN 0;
    END IF;
    WITH staged AS (
        -- 0320: this collector's rows.
        DELETE FROM rollup_fold_rows RETURNING *
    ), legacy AS (
        -- 0320: an earlier collector's.
        DELETE FROM rollup_deltas WHERE kind IN (4, 5) OR kind >= 11 RETURNING *
    ), pending AS (
        SELECT * FROM staged
        UNION ALL
        SELECT * FROM legacy
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
    ), dismiss_blocks AS (
        -- 0301: the same rows summed over their versions, per block and category.
        INSERT INTO rollup_dismiss_blocks AS t (app_id, grain, bucket, category, delivered, dismissals)
        SELECT app_id, grain, bucket, category, sum(n1), sum(n2)
        FROM pending WHERE kind = 15
        GROUP BY 1, 2, 3, 4
        ORDER BY 1, 2, 3, 4
        ON CONFLICT (app_id, grain, bucket, category) DO UPDATE SET
            delivered = t.delivered + EXCLUDED.delivered, dismissals = t.dismissals + EXCLUDED.dismissals
    ), dismiss_versions AS (
        -- 0301: the versions the rows name, once each.
        INSERT INTO rollup_dismiss_versions (app_id, app_version)
        SELECT DISTINCT app_id, app_version
        FROM pending WHERE kind = 15
        ORDER BY 1, 2
        ON CONFLICT (app_id, app_version) DO NOTHING
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
