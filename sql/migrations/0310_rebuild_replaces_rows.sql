-- 0310: a rebuild over existing rollups replaces a day's rows in place instead of deleting them
-- and adding them back (issue 33; docs/reports.md, "Rebuilding").
--
-- Until now a rebuilt day's rows were deleted (rollups_rebuild_delete.sql), then its rows derived
-- from the events were added by tapwire_fold_rollups(), and its blocks of days deleted and
-- inserted again (tapwire_rebuild_blocks of 0301). Every row of a day a rebuild touched left a
-- dead version and a new one on another page, with a new entry in every index: measured at 2M
-- events of the real shape, the rollups grew by half again over a rebuild (docs/reports.md).
--
-- tapwire_replace_rollups(app, from, to) takes the day's rows the rebuild wrote into
-- rollup_deltas (its grains 0 and 2, as the fold would take them) and makes the stored rows of
-- [from, to) exactly them, table by table: a key whose values are unchanged is not written; a
-- key whose values changed is updated (on its page, within fillfactor 70: a HOT update, no new
-- index entry); a new key is inserted; a stored key the day no longer has is deleted. So a
-- rebuild still repairs whatever the rows held, and leaves the same rows a rebuild from empty
-- rollups does. The sums over the strata (rollup_uplift_days, rollup_conversion_base_days) are
-- recomputed from the day's strata as the fold adds them from zero, and each stratum whose
-- delivered changed is queued for attribution once, from its stored delivered to its new one
-- (the delete queued the fall to zero and the fold the rise back: the same change in two
-- steps). The rebuild's lock (rollups_rebuild_lock.sql) keeps every fold out meanwhile; the
-- caller folded what was pending first, so rollup_deltas holds the day's rows only.
--
-- It replaces one app's rows per statement (tapwire_replace_app_rollups): each statement names
-- the app in every table it reads, so Citus routes it to the app's shards (a rebuild of every
-- app goes app by app: Citus plans no correlated subquery over all shards).
CREATE FUNCTION tapwire_replace_app_rollups(app bigint, day_from timestamptz, day_to timestamptz) RETURNS bigint
LANGUAGE plpgsql SET enable_nestloop = off SET jit = off AS $fn$
DECLARE
    moved bigint;
BEGIN
    WITH pending AS (
        DELETE FROM rollup_deltas WHERE app_id = app AND (kind IN (4, 5) OR kind >= 11) RETURNING *
    ),
    -- rollup_totals
    totals_new AS (
        SELECT app_id, grain, bucket, category, has_media, n1, n2, n3, n4, n5, n6, n7 FROM pending WHERE kind = 11
    ), totals_set AS (
        UPDATE rollup_totals t SET (delivered, sent, media_requested, opens, dismissals, actions, replies) = (n.n1, n.n2, n.n3, n.n4, n.n5, n.n6, n.n7)
        FROM totals_new n
        WHERE t.app_id = n.app_id AND t.grain = n.grain AND t.bucket = n.bucket AND t.category = n.category AND t.has_media = n.has_media
          AND t.grain IN (0, 2) AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.delivered, t.sent, t.media_requested, t.opens, t.dismissals, t.actions, t.replies) IS DISTINCT FROM (n.n1, n.n2, n.n3, n.n4, n.n5, n.n6, n.n7)
    ), totals_add AS (
        INSERT INTO rollup_totals (app_id, grain, bucket, category, has_media, delivered, sent, media_requested, opens, dismissals, actions, replies)
        SELECT n.* FROM totals_new n
        WHERE NOT EXISTS (SELECT 1 FROM rollup_totals t WHERE t.grain IN (0, 2) AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = n.app_id AND t.grain = n.grain AND t.bucket = n.bucket
                          AND t.category = n.category AND t.has_media = n.has_media)
        ORDER BY 1, 2, 3, 4, 5
    ), totals_gone AS (
        DELETE FROM rollup_totals t
        WHERE (app IS NULL OR t.app_id = app) AND t.grain IN (0, 2) AND t.bucket >= day_from AND t.bucket < day_to
          AND NOT EXISTS (SELECT 1 FROM totals_new n WHERE t.app_id = n.app_id AND t.grain = n.grain AND t.bucket = n.bucket
                          AND t.category = n.category AND t.has_media = n.has_media)
    ),
    -- rollup_total_actions
    actions_new AS (
        SELECT app_id, grain, bucket, category, action, n1 FROM pending WHERE kind = 12
    ), actions_set AS (
        UPDATE rollup_total_actions t SET n = a.n1
        FROM actions_new a
        WHERE t.app_id = a.app_id AND t.grain = a.grain AND t.bucket = a.bucket AND t.category = a.category AND t.action = a.action
          AND t.grain IN (0, 2) AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
          AND t.n IS DISTINCT FROM a.n1
    ), actions_add AS (
        INSERT INTO rollup_total_actions (app_id, grain, bucket, category, action, n)
        SELECT a.* FROM actions_new a
        WHERE NOT EXISTS (SELECT 1 FROM rollup_total_actions t WHERE t.grain IN (0, 2) AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = a.app_id AND t.grain = a.grain AND t.bucket = a.bucket
                          AND t.category = a.category AND t.action = a.action)
        ORDER BY 1, 2, 3, 4, 5
    ), actions_gone AS (
        DELETE FROM rollup_total_actions t
        WHERE (app IS NULL OR t.app_id = app) AND t.grain IN (0, 2) AND t.bucket >= day_from AND t.bucket < day_to
          AND NOT EXISTS (SELECT 1 FROM actions_new a WHERE t.app_id = a.app_id AND t.grain = a.grain AND t.bucket = a.bucket
                          AND t.category = a.category AND t.action = a.action)
    ),
    -- rollup_total_histograms
    histograms_new AS (
        SELECT app_id, grain, bucket, category, metric, bins, a1 FROM pending WHERE kind = 13
    ), histograms_set AS (
        UPDATE rollup_total_histograms t SET (bins, counts) = (h.bins, h.a1)
        FROM histograms_new h
        WHERE t.app_id = h.app_id AND t.grain = h.grain AND t.bucket = h.bucket AND t.category = h.category AND t.metric = h.metric
          AND t.grain IN (0, 2) AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.bins, t.counts) IS DISTINCT FROM (h.bins, h.a1)
    ), histograms_add AS (
        INSERT INTO rollup_total_histograms (app_id, grain, bucket, category, metric, bins, counts)
        SELECT h.* FROM histograms_new h
        WHERE NOT EXISTS (SELECT 1 FROM rollup_total_histograms t WHERE t.grain IN (0, 2) AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = h.app_id AND t.grain = h.grain AND t.bucket = h.bucket
                          AND t.category = h.category AND t.metric = h.metric)
        ORDER BY 1, 2, 3, 4, 5
    ), histograms_gone AS (
        DELETE FROM rollup_total_histograms t
        WHERE (app IS NULL OR t.app_id = app) AND t.grain IN (0, 2) AND t.bucket >= day_from AND t.bucket < day_to
          AND NOT EXISTS (SELECT 1 FROM histograms_new h WHERE t.app_id = h.app_id AND t.grain = h.grain AND t.bucket = h.bucket
                          AND t.category = h.category AND t.metric = h.metric)
    ),
    -- rollup_trend
    trend_new AS (
        SELECT app_id, bucket AS day, category, tapwire_running_slots(first_slot, a1) AS d, tapwire_running_slots(first_slot, a2) AS e
        FROM pending WHERE kind = 14
    ), trend_set AS (
        UPDATE rollup_trend t SET (delivered_running, engaged_running) = (r.d, r.e)
        FROM trend_new r
        WHERE t.app_id = r.app_id AND t.day = r.day AND t.category = r.category
          AND t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.delivered_running, t.engaged_running) IS DISTINCT FROM (r.d, r.e)
    ), trend_add AS (
        INSERT INTO rollup_trend (app_id, day, category, delivered_running, engaged_running)
        SELECT r.* FROM trend_new r
        WHERE NOT EXISTS (SELECT 1 FROM rollup_trend t WHERE t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = r.app_id AND t.day = r.day AND t.category = r.category)
        ORDER BY 1, 2, 3
    ), trend_gone AS (
        DELETE FROM rollup_trend t
        WHERE (app IS NULL OR t.app_id = app) AND t.day >= day_from AND t.day < day_to
          AND NOT EXISTS (SELECT 1 FROM trend_new r WHERE t.app_id = r.app_id AND t.day = r.day AND t.category = r.category)
    ),
    -- rollup_dismiss_base (the day, grain 2)
    dismiss_new AS (
        SELECT app_id, grain, bucket, category, app_version, n1, n2 FROM pending WHERE kind = 15
    ), dismiss_set AS (
        UPDATE rollup_dismiss_base t SET (delivered, dismissals) = (d.n1, d.n2)
        FROM dismiss_new d
        WHERE t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket AND t.category = d.category AND t.app_version = d.app_version
          AND t.grain = 2 AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.delivered, t.dismissals) IS DISTINCT FROM (d.n1, d.n2)
    ), dismiss_add AS (
        INSERT INTO rollup_dismiss_base (app_id, grain, bucket, category, app_version, delivered, dismissals)
        SELECT d.* FROM dismiss_new d
        WHERE NOT EXISTS (SELECT 1 FROM rollup_dismiss_base t WHERE t.grain = 2 AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket
                          AND t.category = d.category AND t.app_version = d.app_version)
        ORDER BY 1, 2, 3, 4, 5
    ), dismiss_gone AS (
        DELETE FROM rollup_dismiss_base t
        WHERE (app IS NULL OR t.app_id = app) AND t.grain = 2 AND t.bucket >= day_from AND t.bucket < day_to
          AND NOT EXISTS (SELECT 1 FROM dismiss_new d WHERE t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket
                          AND t.category = d.category AND t.app_version = d.app_version)
    ),
    -- rollup_dismiss_blocks (the day, grain 2): the same rows summed over their versions (0301).
    dismiss_blocks_new AS (
        SELECT app_id, grain, bucket, category, sum(n1) AS delivered, sum(n2) AS dismissals FROM dismiss_new GROUP BY 1, 2, 3, 4
    ), dismiss_blocks_set AS (
        UPDATE rollup_dismiss_blocks t SET (delivered, dismissals) = (d.delivered, d.dismissals)
        FROM dismiss_blocks_new d
        WHERE t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket AND t.category = d.category
          AND t.grain = 2 AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.delivered, t.dismissals) IS DISTINCT FROM (d.delivered, d.dismissals)
    ), dismiss_blocks_add AS (
        INSERT INTO rollup_dismiss_blocks (app_id, grain, bucket, category, delivered, dismissals)
        SELECT d.* FROM dismiss_blocks_new d
        WHERE NOT EXISTS (SELECT 1 FROM rollup_dismiss_blocks t WHERE t.grain = 2 AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket
                          AND t.category = d.category)
        ORDER BY 1, 2, 3, 4
    ), dismiss_blocks_gone AS (
        DELETE FROM rollup_dismiss_blocks t
        WHERE (app IS NULL OR t.app_id = app) AND t.grain = 2 AND t.bucket >= day_from AND t.bucket < day_to
          AND NOT EXISTS (SELECT 1 FROM dismiss_blocks_new d WHERE t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket
                          AND t.category = d.category)
    ), dismiss_versions AS (
        -- 0301: the versions the rows name, once each (a version stays once it had rows).
        INSERT INTO rollup_dismiss_versions (app_id, app_version)
        SELECT DISTINCT app_id, app_version FROM dismiss_new ORDER BY 1, 2
        ON CONFLICT (app_id, app_version) DO NOTHING
    ),
    -- rollup_dismiss_quarters
    quarters_new AS (
        SELECT app_id, bucket AS day, category, app_version, tapwire_running_slots(first_slot, a1) AS d, tapwire_running_slots(first_slot, a2) AS x
        FROM pending WHERE kind = 20
    ), quarters_set AS (
        UPDATE rollup_dismiss_quarters t SET (delivered_running, dismissals_running) = (q.d, q.x)
        FROM quarters_new q
        WHERE t.app_id = q.app_id AND t.day = q.day AND t.category = q.category AND t.app_version = q.app_version
          AND t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.delivered_running, t.dismissals_running) IS DISTINCT FROM (q.d, q.x)
    ), quarters_add AS (
        INSERT INTO rollup_dismiss_quarters (app_id, day, category, app_version, delivered_running, dismissals_running)
        SELECT q.* FROM quarters_new q
        WHERE NOT EXISTS (SELECT 1 FROM rollup_dismiss_quarters t WHERE t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = q.app_id AND t.day = q.day AND t.category = q.category
                          AND t.app_version = q.app_version)
        ORDER BY 1, 2, 3, 4
    ), quarters_gone AS (
        DELETE FROM rollup_dismiss_quarters t
        WHERE (app IS NULL OR t.app_id = app) AND t.day >= day_from AND t.day < day_to
          AND NOT EXISTS (SELECT 1 FROM quarters_new q WHERE t.app_id = q.app_id AND t.day = q.day AND t.category = q.category
                          AND t.app_version = q.app_version)
    ),
    -- rollup_strata, and the sums over them
    strata_new AS (
        SELECT app_id, bucket AS day, category, campaign, platform,
               n1 AS rich_delivered, n2 AS rich_engaged, n3 AS text_delivered, n4 AS text_engaged
        FROM pending WHERE kind = 16
    ), strata_old AS (
        SELECT app_id, day, category, campaign, platform, rich_delivered, text_delivered
        FROM rollup_strata t
        WHERE (app IS NULL OR t.app_id = app) AND t.day >= day_from AND t.day < day_to
    ), strata_set AS (
        UPDATE rollup_strata t SET (rich_delivered, rich_engaged, text_delivered, text_engaged)
                                 = (s.rich_delivered, s.rich_engaged, s.text_delivered, s.text_engaged)
        FROM strata_new s
        WHERE t.app_id = s.app_id AND t.day = s.day AND t.category = s.category AND t.campaign = s.campaign AND t.platform = s.platform
          AND t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.rich_delivered, t.rich_engaged, t.text_delivered, t.text_engaged)
              IS DISTINCT FROM (s.rich_delivered, s.rich_engaged, s.text_delivered, s.text_engaged)
    ), strata_add AS (
        INSERT INTO rollup_strata (app_id, day, category, campaign, platform, rich_delivered, rich_engaged, text_delivered, text_engaged)
        SELECT s.* FROM strata_new s
        WHERE NOT EXISTS (SELECT 1 FROM strata_old t WHERE t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = s.app_id AND t.day = s.day AND t.category = s.category
                          AND t.campaign = s.campaign AND t.platform = s.platform)
        ORDER BY 1, 2, 3, 4, 5
    ), strata_gone AS (
        DELETE FROM rollup_strata t
        WHERE (app IS NULL OR t.app_id = app) AND t.day >= day_from AND t.day < day_to
          AND NOT EXISTS (SELECT 1 FROM strata_new s WHERE t.app_id = s.app_id AND t.day = s.day AND t.category = s.category
                          AND t.campaign = s.campaign AND t.platform = s.platform)
    ), conversion_delivered AS (
        -- Each stratum whose delivered changed, from what was stored to what the day has.
        INSERT INTO conversion_strata_pending (app_id, day, category, campaign, platform, rich_before, text_before, rich_after, text_after)
        SELECT coalesce(s.app_id, o.app_id), coalesce(s.day, o.day), coalesce(s.category, o.category), coalesce(s.campaign, o.campaign),
               coalesce(s.platform, o.platform), coalesce(o.rich_delivered, 0), coalesce(o.text_delivered, 0),
               coalesce(s.rich_delivered, 0), coalesce(s.text_delivered, 0)
        FROM strata_new s
        FULL JOIN strata_old o ON o.app_id = s.app_id AND o.day = s.day AND o.category = s.category AND o.campaign = s.campaign
                               AND o.platform = s.platform
        WHERE coalesce(o.rich_delivered, 0) <> coalesce(s.rich_delivered, 0) OR coalesce(o.text_delivered, 0) <> coalesce(s.text_delivered, 0)
    ), uplift_new AS (
        -- As the fold adds them to a day without strata (tapwire_fold_rollups of 0301).
        SELECT s.app_id, s.day, s.category, sum(n.strata - o.strata) AS strata, sum(n.excluded_delivered - o.excluded_delivered) AS excluded_delivered,
            sum(n.weights - o.weights) AS weights, sum(n.numerator - o.numerator) AS numerator, sum(n.p - o.p) AS p, sum(n.q - o.q) AS q,
            sum(n.null_sum - o.null_sum) AS null_sum, sum(n.deviation - o.deviation) AS deviation,
            sum(n.used_rich_delivered - o.used_rich_delivered) AS used_rich_delivered, sum(n.used_rich_engaged - o.used_rich_engaged) AS used_rich_engaged,
            sum(n.used_text_delivered - o.used_text_delivered) AS used_text_delivered, sum(n.used_text_engaged - o.used_text_engaged) AS used_text_engaged,
            sum(n.both_rich_delivered - o.both_rich_delivered) AS both_rich_delivered, sum(n.both_rich_engaged - o.both_rich_engaged) AS both_rich_engaged,
            sum(n.both_text_delivered - o.both_text_delivered) AS both_text_delivered, sum(n.both_text_engaged - o.both_text_engaged) AS both_text_engaged,
            sum(n.not_meaningful_delivered - o.not_meaningful_delivered) AS not_meaningful_delivered,
            sum(n.engaged_without_deliveries - o.engaged_without_deliveries) AS engaged_without_deliveries
        FROM strata_new s
        CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, s.rich_engaged, s.text_delivered, s.text_engaged) n
        CROSS JOIN LATERAL tapwire_uplift_terms(0, 0, 0, 0) o
        GROUP BY s.app_id, s.day, s.category
    ), uplift_set AS (
        UPDATE rollup_uplift_days t SET (strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation, used_rich_delivered,
                used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged, both_text_delivered,
                both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
            = (u.strata, u.excluded_delivered, u.weights, u.numerator, u.p, u.q, u.null_sum, u.deviation, u.used_rich_delivered,
               u.used_rich_engaged, u.used_text_delivered, u.used_text_engaged, u.both_rich_delivered, u.both_rich_engaged, u.both_text_delivered,
               u.both_text_engaged, u.not_meaningful_delivered, u.engaged_without_deliveries)
        FROM uplift_new u
        WHERE t.app_id = u.app_id AND t.day = u.day AND t.category = u.category
          AND t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.strata, t.excluded_delivered, t.weights::text, t.numerator::text, t.p::text, t.q::text, t.null_sum::text, t.deviation::text,
               t.used_rich_delivered, t.used_rich_engaged, t.used_text_delivered, t.used_text_engaged, t.both_rich_delivered, t.both_rich_engaged,
               t.both_text_delivered, t.both_text_engaged, t.not_meaningful_delivered, t.engaged_without_deliveries)
              IS DISTINCT FROM
              (u.strata, u.excluded_delivered, u.weights::text, u.numerator::text, u.p::text, u.q::text, u.null_sum::text, u.deviation::text,
               u.used_rich_delivered, u.used_rich_engaged, u.used_text_delivered, u.used_text_engaged, u.both_rich_delivered, u.both_rich_engaged,
               u.both_text_delivered, u.both_text_engaged, u.not_meaningful_delivered, u.engaged_without_deliveries)
    ), uplift_add AS (
        INSERT INTO rollup_uplift_days (app_id, day, category, strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation,
            used_rich_delivered, used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged,
            both_text_delivered, both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
        SELECT u.* FROM uplift_new u
        WHERE NOT EXISTS (SELECT 1 FROM rollup_uplift_days t WHERE t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = u.app_id AND t.day = u.day AND t.category = u.category)
        ORDER BY 1, 2, 3
    ), uplift_gone AS (
        DELETE FROM rollup_uplift_days t
        WHERE (app IS NULL OR t.app_id = app) AND t.day >= day_from AND t.day < day_to
          AND NOT EXISTS (SELECT 1 FROM uplift_new u WHERE t.app_id = u.app_id AND t.day = u.day AND t.category = u.category)
    ), base_new AS (
        -- Migration 0180: the same terms as if nothing had converted, over the strata with deliveries.
        SELECT s.app_id, s.day, s.category,
            sum(n.strata - o.strata) AS strata, sum(n.excluded_delivered - o.excluded_delivered) AS excluded_delivered, sum(n.weights - o.weights) AS weights,
            sum(n.numerator - o.numerator) AS numerator, sum(n.p - o.p) AS p, sum(n.q - o.q) AS q, sum(n.null_sum - o.null_sum) AS null_sum,
            sum(n.deviation - o.deviation) AS deviation, sum(n.used_rich_delivered - o.used_rich_delivered) AS used_rich_delivered,
            sum(n.used_rich_engaged - o.used_rich_engaged) AS used_rich_engaged, sum(n.used_text_delivered - o.used_text_delivered) AS used_text_delivered,
            sum(n.used_text_engaged - o.used_text_engaged) AS used_text_engaged, sum(n.both_rich_delivered - o.both_rich_delivered) AS both_rich_delivered,
            sum(n.both_rich_engaged - o.both_rich_engaged) AS both_rich_engaged, sum(n.both_text_delivered - o.both_text_delivered) AS both_text_delivered,
            sum(n.both_text_engaged - o.both_text_engaged) AS both_text_engaged,
            sum(n.not_meaningful_delivered - o.not_meaningful_delivered) AS not_meaningful_delivered,
            sum(n.engaged_without_deliveries - o.engaged_without_deliveries) AS engaged_without_deliveries
        FROM strata_new s
        CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, 0, s.text_delivered, 0) n
        CROSS JOIN LATERAL tapwire_uplift_terms(0, 0, 0, 0) o
        WHERE s.rich_delivered <> 0 OR s.text_delivered <> 0
        GROUP BY s.app_id, s.day, s.category
    ), base_set AS (
        UPDATE rollup_conversion_base_days t SET (strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation, used_rich_delivered,
                used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged, both_text_delivered,
                both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
            = (u.strata, u.excluded_delivered, u.weights, u.numerator, u.p, u.q, u.null_sum, u.deviation, u.used_rich_delivered,
               u.used_rich_engaged, u.used_text_delivered, u.used_text_engaged, u.both_rich_delivered, u.both_rich_engaged, u.both_text_delivered,
               u.both_text_engaged, u.not_meaningful_delivered, u.engaged_without_deliveries)
        FROM base_new u
        WHERE t.app_id = u.app_id AND t.day = u.day AND t.category = u.category
          AND t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.strata, t.excluded_delivered, t.weights::text, t.numerator::text, t.p::text, t.q::text, t.null_sum::text, t.deviation::text,
               t.used_rich_delivered, t.used_rich_engaged, t.used_text_delivered, t.used_text_engaged, t.both_rich_delivered, t.both_rich_engaged,
               t.both_text_delivered, t.both_text_engaged, t.not_meaningful_delivered, t.engaged_without_deliveries)
              IS DISTINCT FROM
              (u.strata, u.excluded_delivered, u.weights::text, u.numerator::text, u.p::text, u.q::text, u.null_sum::text, u.deviation::text,
               u.used_rich_delivered, u.used_rich_engaged, u.used_text_delivered, u.used_text_engaged, u.both_rich_delivered, u.both_rich_engaged,
               u.both_text_delivered, u.both_text_engaged, u.not_meaningful_delivered, u.engaged_without_deliveries)
    ), base_add AS (
        INSERT INTO rollup_conversion_base_days (app_id, day, category, strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation,
            used_rich_delivered, used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged,
            both_text_delivered, both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
        SELECT u.* FROM base_new u
        WHERE NOT EXISTS (SELECT 1 FROM rollup_conversion_base_days t WHERE t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = u.app_id AND t.day = u.day AND t.category = u.category)
        ORDER BY 1, 2, 3
    ), base_gone AS (
        DELETE FROM rollup_conversion_base_days t
        WHERE (app IS NULL OR t.app_id = app) AND t.day >= day_from AND t.day < day_to
          AND NOT EXISTS (SELECT 1 FROM base_new u WHERE t.app_id = u.app_id AND t.day = u.day AND t.category = u.category)
    ),
    -- rollup_marginals
    marginals_new AS (
        SELECT app_id, bucket AS day, dimension, value, category, has_media, n1, n2, n3, n4 FROM pending WHERE kind = 17
    ), marginals_set AS (
        UPDATE rollup_marginals t SET (delivered, sent, opens, actions) = (m.n1, m.n2, m.n3, m.n4)
        FROM marginals_new m
        WHERE t.app_id = m.app_id AND t.day = m.day AND t.dimension = m.dimension AND t.value = m.value AND t.category = m.category
          AND t.has_media = m.has_media
          AND t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.delivered, t.sent, t.opens, t.actions) IS DISTINCT FROM (m.n1, m.n2, m.n3, m.n4)
    ), marginals_add AS (
        INSERT INTO rollup_marginals (app_id, day, dimension, value, category, has_media, delivered, sent, opens, actions)
        SELECT m.* FROM marginals_new m
        WHERE NOT EXISTS (SELECT 1 FROM rollup_marginals t WHERE t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = m.app_id AND t.day = m.day AND t.dimension = m.dimension
                          AND t.value = m.value AND t.category = m.category AND t.has_media = m.has_media)
        ORDER BY 1, 2, 3, 4, 5, 6
    ), marginals_gone AS (
        DELETE FROM rollup_marginals t
        WHERE (app IS NULL OR t.app_id = app) AND t.day >= day_from AND t.day < day_to
          AND NOT EXISTS (SELECT 1 FROM marginals_new m WHERE t.app_id = m.app_id AND t.day = m.day AND t.dimension = m.dimension
                          AND t.value = m.value AND t.category = m.category AND t.has_media = m.has_media)
    ),
    -- mismatch_usage_hourly
    hourly_new AS (
        SELECT app_id, bucket, app_version, platform, type, category, action, category_registered,
               sum(n1) AS event_count, min(first_seen) AS first_seen, max(last_seen) AS last_seen
        FROM pending WHERE kind = 4
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ), hourly_set AS (
        UPDATE mismatch_usage_hourly t SET (event_count, first_seen, last_seen) = (h.event_count, h.first_seen, h.last_seen)
        FROM hourly_new h
        WHERE t.app_id = h.app_id AND t.bucket = h.bucket AND t.app_version = h.app_version AND t.platform = h.platform AND t.type = h.type
          AND t.category = h.category AND t.action = h.action AND t.category_registered = h.category_registered
          AND t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.event_count, t.first_seen, t.last_seen) IS DISTINCT FROM (h.event_count, h.first_seen, h.last_seen)
    ), hourly_add AS (
        INSERT INTO mismatch_usage_hourly (app_id, bucket, app_version, platform, type, category, action, category_registered,
                                           event_count, first_seen, last_seen)
        SELECT h.* FROM hourly_new h
        WHERE NOT EXISTS (SELECT 1 FROM mismatch_usage_hourly t WHERE t.bucket >= day_from AND t.bucket < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = h.app_id AND t.bucket = h.bucket AND t.app_version = h.app_version
                          AND t.platform = h.platform AND t.type = h.type AND t.category = h.category AND t.action = h.action
                          AND t.category_registered = h.category_registered)
        ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
    ), hourly_gone AS (
        DELETE FROM mismatch_usage_hourly t
        WHERE (app IS NULL OR t.app_id = app) AND t.bucket >= day_from AND t.bucket < day_to
          AND NOT EXISTS (SELECT 1 FROM hourly_new h WHERE t.app_id = h.app_id AND t.bucket = h.bucket AND t.app_version = h.app_version
                          AND t.platform = h.platform AND t.type = h.type AND t.category = h.category AND t.action = h.action
                          AND t.category_registered = h.category_registered)
    ),
    -- mismatch_usage_daily
    daily_new AS (
        SELECT app_id, (bucket AT TIME ZONE 'UTC')::date AS day, app_version, platform, type, category, action, category_registered,
               sum(n1) AS event_count, min(first_seen) AS first_seen, max(last_seen) AS last_seen
        FROM pending WHERE kind = 5
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    ), daily_set AS (
        UPDATE mismatch_usage_daily t SET (event_count, first_seen, last_seen) = (h.event_count, h.first_seen, h.last_seen)
        FROM daily_new h
        WHERE t.app_id = h.app_id AND t.day = h.day AND t.app_version = h.app_version AND t.platform = h.platform AND t.type = h.type
          AND t.category = h.category AND t.action = h.action AND t.category_registered = h.category_registered
          AND t.day >= (day_from AT TIME ZONE 'UTC')::date AND t.day < (day_to AT TIME ZONE 'UTC')::date AND (app IS NULL OR t.app_id = app)
          AND (t.event_count, t.first_seen, t.last_seen) IS DISTINCT FROM (h.event_count, h.first_seen, h.last_seen)
    ), daily_add AS (
        INSERT INTO mismatch_usage_daily (app_id, day, app_version, platform, type, category, action, category_registered,
                                          event_count, first_seen, last_seen)
        SELECT h.* FROM daily_new h
        WHERE NOT EXISTS (SELECT 1 FROM mismatch_usage_daily t WHERE t.day >= (day_from AT TIME ZONE 'UTC')::date AND t.day < (day_to AT TIME ZONE 'UTC')::date AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = h.app_id AND t.day = h.day AND t.app_version = h.app_version
                          AND t.platform = h.platform AND t.type = h.type AND t.category = h.category AND t.action = h.action
                          AND t.category_registered = h.category_registered)
        ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
    ), daily_gone AS (
        DELETE FROM mismatch_usage_daily t
        WHERE (app IS NULL OR t.app_id = app)
          AND t.day >= (day_from AT TIME ZONE 'UTC')::date AND t.day < (day_to AT TIME ZONE 'UTC')::date
          AND NOT EXISTS (SELECT 1 FROM daily_new h WHERE t.app_id = h.app_id AND t.day = h.day AND t.app_version = h.app_version
                          AND t.platform = h.platform AND t.type = h.type AND t.category = h.category AND t.action = h.action
                          AND t.category_registered = h.category_registered)
    ),
    -- rollup_release_counts
    release_new AS (
        SELECT app_id, bucket AS day, category, app_version, platform, tapwire_hour_slots(first_slot, a1) AS delivered,
               tapwire_hour_slots(first_slot, a2) AS opens, tapwire_hour_slots(first_slot, a3) AS dismissals,
               tapwire_hour_slots(first_slot, a4) AS replies
        FROM pending WHERE kind = 18
    ), release_set AS (
        UPDATE rollup_release_counts t SET (delivered, opens, dismissals, replies) = (r.delivered, r.opens, r.dismissals, r.replies)
        FROM release_new r
        WHERE t.app_id = r.app_id AND t.day = r.day AND t.category = r.category AND t.app_version = r.app_version AND t.platform = r.platform
          AND t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
          AND (t.delivered, t.opens, t.dismissals, t.replies) IS DISTINCT FROM (r.delivered, r.opens, r.dismissals, r.replies)
    ), release_add AS (
        INSERT INTO rollup_release_counts (app_id, day, category, app_version, platform, delivered, opens, dismissals, replies)
        SELECT r.* FROM release_new r
        WHERE NOT EXISTS (SELECT 1 FROM rollup_release_counts t WHERE t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = r.app_id AND t.day = r.day AND t.category = r.category
                          AND t.app_version = r.app_version AND t.platform = r.platform)
        ORDER BY 1, 2, 3, 4, 5
    ), release_gone AS (
        DELETE FROM rollup_release_counts t
        WHERE (app IS NULL OR t.app_id = app) AND t.day >= day_from AND t.day < day_to
          AND NOT EXISTS (SELECT 1 FROM release_new r WHERE t.app_id = r.app_id AND t.day = r.day AND t.category = r.category
                          AND t.app_version = r.app_version AND t.platform = r.platform)
    ),
    -- rollup_release_actions
    release_actions_new AS (
        SELECT app_id, bucket AS day, category, app_version, platform, action, tapwire_hour_slots(first_slot, a1) AS n
        FROM pending WHERE kind = 19
    ), release_actions_set AS (
        UPDATE rollup_release_actions t SET n = r.n
        FROM release_actions_new r
        WHERE t.app_id = r.app_id AND t.day = r.day AND t.category = r.category AND t.app_version = r.app_version AND t.platform = r.platform
          AND t.action = r.action
          AND t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
          AND t.n IS DISTINCT FROM r.n
    ), release_actions_add AS (
        INSERT INTO rollup_release_actions (app_id, day, category, app_version, platform, action, n)
        SELECT r.* FROM release_actions_new r
        WHERE NOT EXISTS (SELECT 1 FROM rollup_release_actions t WHERE t.day >= day_from AND t.day < day_to AND (app IS NULL OR t.app_id = app)
                          AND t.app_id = r.app_id AND t.day = r.day AND t.category = r.category
                          AND t.app_version = r.app_version AND t.platform = r.platform AND t.action = r.action)
        ORDER BY 1, 2, 3, 4, 5, 6
    ), release_actions_gone AS (
        DELETE FROM rollup_release_actions t
        WHERE (app IS NULL OR t.app_id = app) AND t.day >= day_from AND t.day < day_to
          AND NOT EXISTS (SELECT 1 FROM release_actions_new r WHERE t.app_id = r.app_id AND t.day = r.day AND t.category = r.category
                          AND t.app_version = r.app_version AND t.platform = r.platform AND t.action = r.action)
    )
    SELECT count(*) INTO moved FROM pending;
    RETURN moved;
END
$fn$;

CREATE FUNCTION tapwire_replace_rollups(app bigint, day_from timestamptz, day_to timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    moved bigint := 0;
    one bigint;
BEGIN
    -- The rebuild generation (migration 0115), as rollups_rebuild_delete.sql bumps it.
    INSERT INTO rebuild_generations (app_id, generation) VALUES (coalesce(app, 0), 1)
    ON CONFLICT (app_id) DO UPDATE SET generation = rebuild_generations.generation + 1;
    FOR one IN SELECT a.app_id FROM apps a WHERE app IS NULL OR a.app_id = app ORDER BY 1 LOOP
        moved := moved + tapwire_replace_app_rollups(one, day_from, day_to);
    END LOOP;
    RETURN moved;
END
$fn$;

-- The blocks of days of a rebuilt day (tapwire_rebuild_blocks of 0150 and 0301), made again from
-- their days' rows the same way: unchanged rows are left as they are, changed ones updated, new
-- ones inserted, rows the days no longer have deleted. The block rows are what 0301's function
-- inserted, key for key and value for value.
-- One app per call (tapwire_rebuild_app_blocks), as tapwire_replace_rollups goes.
CREATE FUNCTION tapwire_rebuild_app_blocks(app bigint, grains smallint[], starts timestamptz[], stops timestamptz[]) RETURNS void
LANGUAGE plpgsql SET enable_nestloop = off SET jit = off AS $fn$
BEGIN
    WITH b AS (
        SELECT * FROM unnest(grains, starts, stops) AS b(grain, start, stop)
    ), totals_new AS (
        SELECT d.app_id, b.grain, b.start AS bucket, d.category, d.has_media, sum(d.delivered)::bigint AS delivered, sum(d.sent)::bigint AS sent,
               sum(d.media_requested)::bigint AS media_requested, sum(d.opens)::bigint AS opens, sum(d.dismissals)::bigint AS dismissals,
               sum(d.actions)::bigint AS actions, sum(d.replies)::bigint AS replies
        FROM b JOIN rollup_totals d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
        WHERE (app IS NULL OR d.app_id = app)
        GROUP BY 1, 2, 3, 4, 5
    ), totals_old AS (
        SELECT t.* FROM b JOIN rollup_totals t ON t.grain = b.grain AND t.bucket = b.start
        WHERE (app IS NULL OR t.app_id = app) AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
    ), totals_set AS (
        UPDATE rollup_totals t SET (delivered, sent, media_requested, opens, dismissals, actions, replies)
                                 = (n.delivered, n.sent, n.media_requested, n.opens, n.dismissals, n.actions, n.replies)
        FROM totals_new n
        WHERE t.grain = ANY (grains) AND t.bucket = ANY (starts) AND (app IS NULL OR t.app_id = app)
          AND t.app_id = n.app_id AND t.grain = n.grain AND t.bucket = n.bucket AND t.category = n.category AND t.has_media = n.has_media
          AND (t.delivered, t.sent, t.media_requested, t.opens, t.dismissals, t.actions, t.replies)
              IS DISTINCT FROM (n.delivered, n.sent, n.media_requested, n.opens, n.dismissals, n.actions, n.replies)
    ), totals_add AS (
        INSERT INTO rollup_totals (app_id, grain, bucket, category, has_media, delivered, sent, media_requested, opens, dismissals, actions, replies)
        SELECT n.* FROM totals_new n
        WHERE NOT EXISTS (SELECT 1 FROM totals_old t WHERE t.app_id = n.app_id AND t.grain = n.grain AND t.bucket = n.bucket
                          AND t.category = n.category AND t.has_media = n.has_media)
        ORDER BY 1, 2, 3, 4, 5
    )
    DELETE FROM rollup_totals t
    USING b
    WHERE (app IS NULL OR t.app_id = app) AND t.grain = b.grain AND t.bucket = b.start AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
      AND NOT EXISTS (SELECT 1 FROM totals_new n WHERE t.app_id = n.app_id AND t.grain = n.grain AND t.bucket = n.bucket
                      AND t.category = n.category AND t.has_media = n.has_media);

    WITH b AS (
        SELECT * FROM unnest(grains, starts, stops) AS b(grain, start, stop)
    ), actions_new AS (
        SELECT d.app_id, b.grain, b.start AS bucket, d.category, d.action, sum(d.n)::bigint AS n
        FROM b JOIN rollup_total_actions d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
        WHERE (app IS NULL OR d.app_id = app)
        GROUP BY 1, 2, 3, 4, 5
    ), actions_old AS (
        SELECT t.* FROM b JOIN rollup_total_actions t ON t.grain = b.grain AND t.bucket = b.start
        WHERE (app IS NULL OR t.app_id = app) AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
    ), actions_set AS (
        UPDATE rollup_total_actions t SET n = a.n
        FROM actions_new a
        WHERE t.grain = ANY (grains) AND t.bucket = ANY (starts) AND (app IS NULL OR t.app_id = app)
          AND t.app_id = a.app_id AND t.grain = a.grain AND t.bucket = a.bucket AND t.category = a.category AND t.action = a.action
          AND t.n IS DISTINCT FROM a.n
    ), actions_add AS (
        INSERT INTO rollup_total_actions (app_id, grain, bucket, category, action, n)
        SELECT a.* FROM actions_new a
        WHERE NOT EXISTS (SELECT 1 FROM actions_old t WHERE t.app_id = a.app_id AND t.grain = a.grain AND t.bucket = a.bucket
                          AND t.category = a.category AND t.action = a.action)
        ORDER BY 1, 2, 3, 4, 5
    )
    DELETE FROM rollup_total_actions t
    USING b
    WHERE (app IS NULL OR t.app_id = app) AND t.grain = b.grain AND t.bucket = b.start AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
      AND NOT EXISTS (SELECT 1 FROM actions_new a WHERE t.app_id = a.app_id AND t.grain = a.grain AND t.bucket = a.bucket
                      AND t.category = a.category AND t.action = a.action);

    WITH b AS (
        SELECT * FROM unnest(grains, starts, stops) AS b(grain, start, stop)
    ), histograms_new AS (
        SELECT app_id, grain, start AS bucket, category, metric, array_agg(bin ORDER BY bin) AS bins, array_agg(n ORDER BY bin) AS counts
        FROM (SELECT d.app_id, b.grain, b.start, d.category, d.metric, u.bin, sum(u.n)::bigint AS n
              FROM b JOIN rollup_total_histograms d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
              CROSS JOIN LATERAL unnest(d.bins, d.counts) AS u(bin, n)
              WHERE (app IS NULL OR d.app_id = app)
              GROUP BY 1, 2, 3, 4, 5, 6) s
        GROUP BY 1, 2, 3, 4, 5
    ), histograms_old AS (
        SELECT t.app_id, t.grain, t.bucket, t.category, t.metric
        FROM b JOIN rollup_total_histograms t ON t.grain = b.grain AND t.bucket = b.start
        WHERE (app IS NULL OR t.app_id = app) AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
    ), histograms_set AS (
        UPDATE rollup_total_histograms t SET (bins, counts) = (h.bins, h.counts)
        FROM histograms_new h
        WHERE t.grain = ANY (grains) AND t.bucket = ANY (starts) AND (app IS NULL OR t.app_id = app)
          AND t.app_id = h.app_id AND t.grain = h.grain AND t.bucket = h.bucket AND t.category = h.category AND t.metric = h.metric
          AND (t.bins, t.counts) IS DISTINCT FROM (h.bins, h.counts)
    ), histograms_add AS (
        INSERT INTO rollup_total_histograms (app_id, grain, bucket, category, metric, bins, counts)
        SELECT h.* FROM histograms_new h
        WHERE NOT EXISTS (SELECT 1 FROM histograms_old t WHERE t.app_id = h.app_id AND t.grain = h.grain AND t.bucket = h.bucket
                          AND t.category = h.category AND t.metric = h.metric)
        ORDER BY 1, 2, 3, 4, 5
    )
    DELETE FROM rollup_total_histograms t
    USING b
    WHERE (app IS NULL OR t.app_id = app) AND t.grain = b.grain AND t.bucket = b.start AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
      AND NOT EXISTS (SELECT 1 FROM histograms_new h WHERE t.app_id = h.app_id AND t.grain = h.grain AND t.bucket = h.bucket
                      AND t.category = h.category AND t.metric = h.metric);

    WITH b AS (
        SELECT * FROM unnest(grains, starts, stops) AS b(grain, start, stop)
    ), dismiss_new AS (
        SELECT d.app_id, b.grain, b.start AS bucket, d.category, d.app_version, sum(d.delivered)::bigint AS delivered,
               sum(d.dismissals)::bigint AS dismissals
        FROM b JOIN rollup_dismiss_base d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
        WHERE (app IS NULL OR d.app_id = app)
        GROUP BY 1, 2, 3, 4, 5
    ), dismiss_old AS (
        SELECT t.app_id, t.grain, t.bucket, t.category, t.app_version
        FROM b JOIN rollup_dismiss_base t ON t.grain = b.grain AND t.bucket = b.start
        WHERE (app IS NULL OR t.app_id = app) AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
    ), dismiss_set AS (
        UPDATE rollup_dismiss_base t SET (delivered, dismissals) = (d.delivered, d.dismissals)
        FROM dismiss_new d
        WHERE t.grain = ANY (grains) AND t.bucket = ANY (starts) AND (app IS NULL OR t.app_id = app)
          AND t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket AND t.category = d.category AND t.app_version = d.app_version
          AND (t.delivered, t.dismissals) IS DISTINCT FROM (d.delivered, d.dismissals)
    ), dismiss_add AS (
        INSERT INTO rollup_dismiss_base (app_id, grain, bucket, category, app_version, delivered, dismissals)
        SELECT d.* FROM dismiss_new d
        WHERE NOT EXISTS (SELECT 1 FROM dismiss_old t WHERE t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket
                          AND t.category = d.category AND t.app_version = d.app_version)
        ORDER BY 1, 2, 3, 4, 5
    )
    DELETE FROM rollup_dismiss_base t
    USING b
    WHERE (app IS NULL OR t.app_id = app) AND t.grain = b.grain AND t.bucket = b.start AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
      AND NOT EXISTS (SELECT 1 FROM dismiss_new d WHERE t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket
                      AND t.category = d.category AND t.app_version = d.app_version);

    WITH b AS (
        SELECT * FROM unnest(grains, starts, stops) AS b(grain, start, stop)
    ), blocks_new AS (
        SELECT d.app_id, b.grain, b.start AS bucket, d.category, sum(d.delivered)::bigint AS delivered, sum(d.dismissals)::bigint AS dismissals
        FROM b JOIN rollup_dismiss_blocks d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
        WHERE (app IS NULL OR d.app_id = app)
        GROUP BY 1, 2, 3, 4
    ), blocks_old AS (
        SELECT t.app_id, t.grain, t.bucket, t.category
        FROM b JOIN rollup_dismiss_blocks t ON t.grain = b.grain AND t.bucket = b.start
        WHERE (app IS NULL OR t.app_id = app) AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
    ), blocks_set AS (
        UPDATE rollup_dismiss_blocks t SET (delivered, dismissals) = (d.delivered, d.dismissals)
        FROM blocks_new d
        WHERE t.grain = ANY (grains) AND t.bucket = ANY (starts) AND (app IS NULL OR t.app_id = app)
          AND t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket AND t.category = d.category
          AND (t.delivered, t.dismissals) IS DISTINCT FROM (d.delivered, d.dismissals)
    ), blocks_add AS (
        INSERT INTO rollup_dismiss_blocks (app_id, grain, bucket, category, delivered, dismissals)
        SELECT d.* FROM blocks_new d
        WHERE NOT EXISTS (SELECT 1 FROM blocks_old t WHERE t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket
                          AND t.category = d.category)
        ORDER BY 1, 2, 3, 4
    )
    DELETE FROM rollup_dismiss_blocks t
    USING b
    WHERE (app IS NULL OR t.app_id = app) AND t.grain = b.grain AND t.bucket = b.start AND t.grain = ANY (grains) AND t.bucket = ANY (starts)
      AND NOT EXISTS (SELECT 1 FROM blocks_new d WHERE t.app_id = d.app_id AND t.grain = d.grain AND t.bucket = d.bucket
                      AND t.category = d.category);
END
$fn$;

CREATE OR REPLACE FUNCTION tapwire_rebuild_blocks(app bigint, grains smallint[], starts timestamptz[], stops timestamptz[]) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
    one bigint;
BEGIN
    FOR one IN SELECT a.app_id FROM apps a WHERE app IS NULL OR a.app_id = app ORDER BY 1 LOOP
        PERFORM tapwire_rebuild_app_blocks(one, grains, starts, stops);
    END LOOP;
END
$fn$;
