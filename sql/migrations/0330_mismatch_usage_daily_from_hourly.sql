-- 0330 (option (a) of task mismatch12, measured and not taken: reverted by the next commit; see
-- docs/benchmarks.md, "The mismatch usage without its daily table: tried and dropped (branch
-- mismatch12)"): the fold and the rebuild stop writing mismatch_usage_daily; the mismatch usage
-- window reads whole days from mismatch_usage_hourly (issue 33).
--
-- mismatch_usage_daily (0020) held, per UTC day, what mismatch_usage_hourly holds per hour, so that
-- sql/queries/mismatch_usage_window.sql could read a window's whole days as one row a shape and a
-- day. At the real shape each of the two tables had about 22,000 rows to upsert per 1M events, and
-- the daily one was about a seventh of the fold's statement. Its only reader was that window (the
-- findings monitor, the findings API, the HTML report's findings): it now reads the hourly rows of
-- the whole window (what that costs each read against what the fold saves: docs/benchmarks.md).
--
-- The table becomes a view of the hourly one summed by UTC day, with the table's columns: a
-- collector of the previous release, running beside this one during an upgrade
-- (docs/deployment.md), reads whole days from it and gets the same sums. Its fold rows of kind 5
-- (the daily deltas it still stages) are taken and dropped by the fold below, as the rebuild
-- drops them.

DELETE FROM tapwire_table_layout WHERE table_name = 'mismatch_usage_daily';
DROP TABLE mismatch_usage_daily;

CREATE VIEW mismatch_usage_daily AS
SELECT app_id, (bucket AT TIME ZONE 'UTC')::date AS day, app_version, platform, type, category, action, category_registered,
       sum(event_count)::bigint AS event_count, min(first_seen) AS first_seen, max(last_seen) AS last_seen
FROM mismatch_usage_hourly
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

-- The fold of 0320 without its daily CTE (its rows of kind 5 are still taken, and dropped); the
-- rest is unchanged, its setting restated.
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

-- The rebuild's statement of one app's day (0311) without its daily part; the rest is unchanged.
CREATE OR REPLACE FUNCTION tapwire_replace_statement() RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
    by_grain text := 't.app_id = $1 AND t.grain IN (0, 2) AND t.bucket >= $2 AND t.bucket < $3';
    by_day text := 't.app_id = $1 AND t.day >= $2 AND t.day < $3';
    sums text := 'strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation, used_rich_delivered, used_rich_engaged,
        used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged, both_text_delivered, both_text_engaged,
        not_meaningful_delivered, engaged_without_deliveries';
    sum_terms text := 'sum(n.strata - o.strata) AS strata, sum(n.excluded_delivered - o.excluded_delivered) AS excluded_delivered,
            sum(n.weights - o.weights) AS weights, sum(n.numerator - o.numerator) AS numerator, sum(n.p - o.p) AS p, sum(n.q - o.q) AS q,
            sum(n.null_sum - o.null_sum) AS null_sum, sum(n.deviation - o.deviation) AS deviation,
            sum(n.used_rich_delivered - o.used_rich_delivered) AS used_rich_delivered, sum(n.used_rich_engaged - o.used_rich_engaged) AS used_rich_engaged,
            sum(n.used_text_delivered - o.used_text_delivered) AS used_text_delivered, sum(n.used_text_engaged - o.used_text_engaged) AS used_text_engaged,
            sum(n.both_rich_delivered - o.both_rich_delivered) AS both_rich_delivered, sum(n.both_rich_engaged - o.both_rich_engaged) AS both_rich_engaged,
            sum(n.both_text_delivered - o.both_text_delivered) AS both_text_delivered, sum(n.both_text_engaged - o.both_text_engaged) AS both_text_engaged,
            sum(n.not_meaningful_delivered - o.not_meaningful_delivered) AS not_meaningful_delivered,
            sum(n.engaged_without_deliveries - o.engaged_without_deliveries) AS engaged_without_deliveries';
    exact text[] := '{weights, numerator, p, q, null_sum, deviation}';
    release_keys text[] := '{app_id, day, category, app_version, platform}';
    usage_keys text[] := '{app_version, platform, type, category, action, category_registered}';
BEGIN
    RETURN 'WITH pending AS (
        DELETE FROM rollup_deltas WHERE app_id = $1 AND (kind IN (4, 5) OR kind >= 11) RETURNING *
    ),'
    || tapwire_replace_part('totals', 'rollup_totals', '{app_id, grain, bucket, category, has_media}',
           '{delivered, sent, media_requested, opens, dismissals, actions, replies}',
           'SELECT app_id, grain, bucket, category, has_media, n1 AS delivered, n2 AS sent, n3 AS media_requested, n4 AS opens,
                   n5 AS dismissals, n6 AS actions, n7 AS replies FROM pending WHERE kind = 11', by_grain) || ','
    || tapwire_replace_part('actions', 'rollup_total_actions', '{app_id, grain, bucket, category, action}', '{n}',
           'SELECT app_id, grain, bucket, category, action, n1 AS n FROM pending WHERE kind = 12', by_grain) || ','
    || tapwire_replace_part('histograms', 'rollup_total_histograms', '{app_id, grain, bucket, category, metric}', '{bins, counts}',
           'SELECT app_id, grain, bucket, category, metric, bins, a1 AS counts FROM pending WHERE kind = 13', by_grain) || ','
    || tapwire_replace_part('trend', 'rollup_trend', '{app_id, day, category}', '{delivered_running, engaged_running}',
           'SELECT app_id, bucket AS day, category, tapwire_running_slots(first_slot, a1) AS delivered_running,
                   tapwire_running_slots(first_slot, a2) AS engaged_running FROM pending WHERE kind = 14', by_day) || ','
    || tapwire_replace_part('dismiss', 'rollup_dismiss_base', '{app_id, grain, bucket, category, app_version}', '{delivered, dismissals}',
           'SELECT app_id, grain, bucket, category, app_version, n1 AS delivered, n2 AS dismissals FROM pending WHERE kind = 15',
           't.app_id = $1 AND t.grain = 2 AND t.bucket >= $2 AND t.bucket < $3') || ','
    -- rollup_dismiss_blocks (the day, grain 2): the same rows summed over their versions (0301).
    || tapwire_replace_part('dismiss_blocks', 'rollup_dismiss_blocks', '{app_id, grain, bucket, category}', '{delivered, dismissals}',
           'SELECT app_id, grain, bucket, category, sum(delivered) AS delivered, sum(dismissals) AS dismissals FROM dismiss_new GROUP BY 1, 2, 3, 4',
           't.app_id = $1 AND t.grain = 2 AND t.bucket >= $2 AND t.bucket < $3') || ','
    || '
    dismiss_versions AS (
        -- 0301: the versions the rows name, once each (a version stays once it had rows).
        INSERT INTO rollup_dismiss_versions (app_id, app_version)
        SELECT DISTINCT app_id, app_version FROM dismiss_new ORDER BY 1, 2
        ON CONFLICT (app_id, app_version) DO NOTHING
    ),'
    || tapwire_replace_part('quarters', 'rollup_dismiss_quarters', '{app_id, day, category, app_version}', '{delivered_running, dismissals_running}',
           'SELECT app_id, bucket AS day, category, app_version, tapwire_running_slots(first_slot, a1) AS delivered_running,
                   tapwire_running_slots(first_slot, a2) AS dismissals_running FROM pending WHERE kind = 20', by_day) || ','
    || tapwire_replace_part('strata', 'rollup_strata', '{app_id, day, category, campaign, platform}',
           '{rich_delivered, rich_engaged, text_delivered, text_engaged}',
           'SELECT app_id, bucket AS day, category, campaign, platform, n1 AS rich_delivered, n2 AS rich_engaged, n3 AS text_delivered,
                   n4 AS text_engaged FROM pending WHERE kind = 16', by_day) || ','
    || '
    conversion_delivered AS (
        -- Each stratum whose delivered changed, from what was stored to what the day has (a
        -- stratum on one side only counts 0 on the other).
        INSERT INTO conversion_strata_pending (app_id, day, category, campaign, platform, rich_before, text_before, rich_after, text_after)
        SELECT app_id, day, category, campaign, platform, coalesce(old_rich_delivered, 0), coalesce(old_text_delivered, 0),
               coalesce(rich_delivered, 0), coalesce(text_delivered, 0)
        FROM strata_diff
        WHERE coalesce(old_rich_delivered, 0) <> coalesce(rich_delivered, 0) OR coalesce(old_text_delivered, 0) <> coalesce(text_delivered, 0)
    ),'
    -- As the fold adds them to a day without strata (tapwire_fold_rollups of 0301).
    || tapwire_replace_part('uplift', 'rollup_uplift_days', '{app_id, day, category}', ('{' || sums || '}')::text[],
           'SELECT s.app_id, s.day, s.category, ' || sum_terms || '
            FROM strata_new s
            CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, s.rich_engaged, s.text_delivered, s.text_engaged) n
            CROSS JOIN LATERAL tapwire_uplift_terms(0, 0, 0, 0) o
            GROUP BY s.app_id, s.day, s.category', by_day, exact) || ','
    -- Migration 0180: the same terms as if nothing had converted, over the strata with deliveries.
    || tapwire_replace_part('base', 'rollup_conversion_base_days', '{app_id, day, category}', ('{' || sums || '}')::text[],
           'SELECT s.app_id, s.day, s.category, ' || sum_terms || '
            FROM strata_new s
            CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, 0, s.text_delivered, 0) n
            CROSS JOIN LATERAL tapwire_uplift_terms(0, 0, 0, 0) o
            WHERE s.rich_delivered <> 0 OR s.text_delivered <> 0
            GROUP BY s.app_id, s.day, s.category', by_day, exact) || ','
    || tapwire_replace_part('marginals', 'rollup_marginals', '{app_id, day, dimension, value, category, has_media}',
           '{delivered, sent, opens, actions}',
           'SELECT app_id, bucket AS day, dimension, value, category, has_media, n1 AS delivered, n2 AS sent, n3 AS opens, n4 AS actions
            FROM pending WHERE kind = 17', by_day) || ','
    -- The rebuild writes each key of the mismatch usage once: its rows are taken as they are.
    || tapwire_replace_part('hourly', 'mismatch_usage_hourly', '{app_id, bucket}'::text[] || usage_keys, '{event_count, first_seen, last_seen}',
           'SELECT app_id, bucket, app_version, platform, type, category, action, category_registered, n1 AS event_count, first_seen, last_seen
            FROM pending WHERE kind = 4', 't.app_id = $1 AND t.bucket >= $2 AND t.bucket < $3') || ','
    || tapwire_replace_part('release', 'rollup_release_counts', release_keys, '{delivered, opens, dismissals, replies}',
           'SELECT app_id, bucket AS day, category, app_version, platform, tapwire_hour_slots(first_slot, a1) AS delivered,
                   tapwire_hour_slots(first_slot, a2) AS opens, tapwire_hour_slots(first_slot, a3) AS dismissals,
                   tapwire_hour_slots(first_slot, a4) AS replies
            FROM pending WHERE kind = 18', by_day) || ','
    || tapwire_replace_part('release_actions', 'rollup_release_actions', release_keys || '{action}'::text[], '{n}',
           'SELECT app_id, bucket AS day, category, app_version, platform, action, tapwire_hour_slots(first_slot, a1) AS n
            FROM pending WHERE kind = 19', by_day)
    || '
    SELECT count(*) FROM pending';
END
$fn$;

-- 0313's replacement of one app's day, unchanged but for the name its session prepares the
-- statement under: a session that prepared 0313's statement (which wrote the daily table) before
-- this migration must prepare the new one, not execute the old. Its settings restated.
CREATE OR REPLACE FUNCTION tapwire_replace_app_rollups(app bigint, day_from timestamptz, day_to timestamptz, staged regclass) RETURNS bigint
LANGUAGE plpgsql SET enable_nestloop = on SET jit = off SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    moved bigint;
    prepared text := 'tapwire_replace_0330_' || staged::oid;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        -- Citus cannot plan this statement generically ("could not create distributed plan",
        -- CitusUserFlowTests): there it is planned every day with its values, as 0311 does (a
        -- one-shot plan, whatever plan_cache_mode says).
        EXECUTE tapwire_replace_staged_statement(staged) INTO moved USING app, day_from, day_to;
        RETURN moved;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_prepared_statements p WHERE p.name = prepared) THEN
        EXECUTE format('PREPARE %I (bigint, timestamptz, timestamptz) AS %s', prepared, tapwire_replace_staged_statement(staged));
    END IF;
    -- EXECUTE of a prepared statement takes no bind parameters: the values are written in. The
    -- times go as microseconds since the epoch, not as text: a timestamptz's text follows the
    -- session's DateStyle and TimeZone, and an abbreviation such as IST (India's, under
    -- TimeZone Asia/Kolkata and DateStyle SQL) reads back as another zone's (Israel's), which
    -- moved the day and made the replacement insert keys it had (ServerSettingsTests).
    EXECUTE format('EXECUTE %I (%L::bigint, timestamptz ''epoch'' + %L::bigint * interval ''1 microsecond'','
                   ' timestamptz ''epoch'' + %L::bigint * interval ''1 microsecond'')', prepared, app,
                   (extract(epoch FROM day_from) * 1000000)::bigint, (extract(epoch FROM day_to) * 1000000)::bigint) INTO moved;
    RETURN moved;
END
$fn$;
