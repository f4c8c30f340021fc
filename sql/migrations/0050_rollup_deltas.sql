-- 0050: the rollups' pending deltas. A group commit no longer upserts the rollup tables itself:
-- it appends what its new events add (computed by TapwireCore.RollupDeltas) to rollup_deltas,
-- in the same transaction as the events, with one COPY. Appending takes no row locks, so
-- concurrent commits never wait on each other's hot rollup rows, and it costs a fraction of an
-- upsert. tapwire_fold_rollup_deltas() then moves the pending rows into the five rollup tables,
-- summed per key, so each key is upserted once per fold instead of once per commit.
--
-- Who folds: the collector, about once a second; every report and mismatch read, first, so
-- what it reads counts every acknowledged event; `tapwire rollups rebuild`, under its lock.
-- Readers that go to the tables directly (the Grafana dashboards) lag by at most one fold.
--
-- A fold deletes the rows it moves (DELETE … RETURNING): two folds at once each take rows the
-- other did not, and rows committed during a fold stay for the next, so every delta is added
-- exactly once. Each table's rows are upserted in key order and the tables always in the same
-- order, so concurrent folds lock rollup rows in the same order.

CREATE TABLE rollup_deltas (
    -- 1 rollup_counts, 2 rollup_actions, 3 rollup_histograms, 4 mismatch_usage_hourly,
    -- 5 mismatch_usage_daily.
    kind                smallint    NOT NULL CHECK (kind BETWEEN 1 AND 5),
    app_id              bigint      NOT NULL,
    grain               smallint,
    -- The row's hour, or its day as the UTC midnight.
    bucket              timestamptz NOT NULL,
    category            text        NOT NULL,
    app_version         text        NOT NULL,
    platform            text        NOT NULL,
    campaign            text,
    variant             text,
    has_media           boolean,
    action              text,
    metric              smallint,
    bin                 smallint,
    type                event_type,
    category_registered smallint,
    -- rollup_counts: delivered, sent, media_requested, opens, dismissals, actions, replies;
    -- the other tables: n1 is the count.
    n1 bigint NOT NULL, n2 bigint, n3 bigint, n4 bigint, n5 bigint, n6 bigint, n7 bigint,
    first_seen          timestamptz,
    last_seen           timestamptz
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000,
        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 20000);

CREATE FUNCTION tapwire_fold_rollup_deltas() RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    moved bigint;
BEGIN
    WITH pending AS (
        DELETE FROM rollup_deltas RETURNING *
    ), counts AS (
        INSERT INTO rollup_counts AS t (app_id, grain, hour, category, app_version, platform, campaign, variant,
            has_media, delivered, sent, media_requested, opens, dismissals, actions, replies)
        SELECT app_id, grain, bucket, category, app_version, platform, campaign, variant, has_media,
            sum(n1), sum(n2), sum(n3), sum(n4), sum(n5), sum(n6), sum(n7)
        FROM pending
        WHERE kind = 1
        GROUP BY app_id, grain, bucket, category, app_version, platform, campaign, variant, has_media
        ORDER BY app_id, grain, bucket, category, app_version, platform, campaign, variant, has_media
        ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, has_media) DO UPDATE SET
            delivered = t.delivered + EXCLUDED.delivered, sent = t.sent + EXCLUDED.sent,
            media_requested = t.media_requested + EXCLUDED.media_requested, opens = t.opens + EXCLUDED.opens,
            dismissals = t.dismissals + EXCLUDED.dismissals, actions = t.actions + EXCLUDED.actions,
            replies = t.replies + EXCLUDED.replies
    ), actions AS (
        INSERT INTO rollup_actions AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, action, n)
        SELECT app_id, grain, bucket, category, app_version, platform, campaign, variant, action, sum(n1)
        FROM pending
        WHERE kind = 2
        GROUP BY app_id, grain, bucket, category, app_version, platform, campaign, variant, action
        ORDER BY app_id, grain, bucket, category, app_version, platform, campaign, variant, action
        ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, action) DO UPDATE SET
            n = t.n + EXCLUDED.n
    ), histograms AS (
        INSERT INTO rollup_histograms AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin, n)
        SELECT app_id, grain, bucket, category, app_version, platform, campaign, variant, metric, bin, sum(n1)
        FROM pending
        WHERE kind = 3
        GROUP BY app_id, grain, bucket, category, app_version, platform, campaign, variant, metric, bin
        ORDER BY app_id, grain, bucket, category, app_version, platform, campaign, variant, metric, bin
        ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin) DO UPDATE SET
            n = t.n + EXCLUDED.n
    ), hourly AS (
        INSERT INTO mismatch_usage_hourly AS u (app_id, bucket, app_version, platform, type, category, action,
                                                category_registered, event_count, first_seen, last_seen)
        SELECT app_id, bucket, app_version, platform, type, category, action, category_registered,
               sum(n1), min(first_seen), max(last_seen)
        FROM pending
        WHERE kind = 4
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
        FROM pending
        WHERE kind = 5
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
        ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
        ON CONFLICT (app_id, day, app_version, platform, type, category, action, category_registered)
        DO UPDATE SET event_count = u.event_count + EXCLUDED.event_count,
                      first_seen = LEAST(u.first_seen, EXCLUDED.first_seen),
                      last_seen = GREATEST(u.last_seen, EXCLUDED.last_seen)
    )
    SELECT count(*) INTO moved FROM pending;
    RETURN moved;
END
$fn$;

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('rollup_deltas', 'distributed', 'pending rollup rows, co-located with the rollups they are folded into');
