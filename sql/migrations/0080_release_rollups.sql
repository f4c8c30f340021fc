-- 0080: the release-regression check's rollups (docs/regressions.md).
--
-- The check compares the newest app version with the ones before it, hour by hour, within
-- strata of platform × UTC day, every hour, over up to the version's first weeks. Grain 0 of
-- rollup_counts and rollup_actions holds those hours, but split by campaign, variant and
-- rich/text-only as well: 14 days of an app with 20 categories, 3 versions, 2 platforms and
-- the report benchmark's 30 campaign × variant × media combinations are 1.2 million counts rows
-- and 3.6 million action rows, about a second to sum. These tables keep one row per UTC day,
-- category, app version and platform (and action), with an element per hour of the day: the
-- same 14 days are 1,680 counts rows and one per action and cell, read in milliseconds.
--
-- Element i (1-based) of each array counts hour i - 1 of the row's UTC day. Every array has 24
-- elements. delivered, opens, dismissals and replies mean what the columns of the same names of
-- rollup_counts mean (replies: responses with a registered action that carried a reply length);
-- rollup_release_actions.n counts responses per registered action, as rollup_actions.n.
--
-- Who writes them: tapwire_fold_rollup_deltas(), from the grain-0 rows of rollup_counts and
-- rollup_actions it folds (kind 1 and 2 of rollup_deltas), summed per day, category, version and
-- platform. Deriving them in the database, not in TapwireCore.RollupDeltas, means every fold
-- writes them, including a fold by a collector of the previous version during a rolling
-- upgrade, and `tapwire rollups rebuild` (which upserts through the same function). The test
-- oracle recomputes them from raw events (sql/fresh/13_rollup_release_counts.sql and 14_rollup_release_actions.sql).

-- The hour counts of one day from (hour of the day, count) pairs: 24 elements, summed per hour.
CREATE FUNCTION tapwire_hour_counts(hours integer[], counts bigint[]) RETURNS bigint[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY(
    SELECT coalesce(sum(u.n), 0)::bigint
    FROM generate_series(0, 23) AS h(hour)
    LEFT JOIN unnest(hours, counts) AS u(hour, n) ON u.hour = h.hour
    GROUP BY h.hour
    ORDER BY h.hour);

-- Two days' hour counts added element by element.
CREATE FUNCTION tapwire_add_hour_counts(a bigint[], b bigint[]) RETURNS bigint[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY(SELECT x.n + y.n FROM unnest(a) WITH ORDINALITY AS x(n, i) JOIN unnest(b) WITH ORDINALITY AS y(n, i) USING (i) ORDER BY i);

CREATE TABLE rollup_release_counts (
    app_id      bigint      NOT NULL,
    -- The UTC day, as its midnight.
    day         timestamptz NOT NULL,
    category    text        NOT NULL,
    app_version text        NOT NULL,
    platform    text        NOT NULL,
    delivered   bigint[]    NOT NULL CHECK (cardinality(delivered) = 24),
    opens       bigint[]    NOT NULL CHECK (cardinality(opens) = 24),
    dismissals  bigint[]    NOT NULL CHECK (cardinality(dismissals) = 24),
    replies     bigint[]    NOT NULL CHECK (cardinality(replies) = 24),
    PRIMARY KEY (app_id, day, category, app_version, platform)
) WITH (fillfactor = 70);

-- A version's first day: where its comparison starts (one probe per version).
CREATE INDEX rollup_release_counts_version ON rollup_release_counts (app_id, app_version, day);

CREATE TABLE rollup_release_actions (
    app_id      bigint      NOT NULL,
    day         timestamptz NOT NULL,
    category    text        NOT NULL,
    app_version text        NOT NULL,
    platform    text        NOT NULL,
    action      text        NOT NULL,
    n           bigint[]    NOT NULL CHECK (cardinality(n) = 24),
    PRIMARY KEY (app_id, day, category, app_version, platform, action)
) WITH (fillfactor = 70);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('rollup_release_counts', 'distributed', 'release-regression rollup, co-located with events'),
    ('rollup_release_actions', 'distributed', 'release-regression rollup, co-located with events');
SELECT tapwire_apply_citus_layout();

-- What is already stored, from grain 0. The lock keeps folds out while it is copied (a fold of
-- a collector already running the new function would add its rows twice otherwise).
LOCK TABLE rollup_counts, rollup_actions IN EXCLUSIVE MODE;

INSERT INTO rollup_release_counts (app_id, day, category, app_version, platform, delivered, opens, dismissals, replies)
SELECT app_id, day, category, app_version, platform,
       tapwire_hour_counts(array_agg(h), array_agg(delivered)), tapwire_hour_counts(array_agg(h), array_agg(opens)),
       tapwire_hour_counts(array_agg(h), array_agg(dismissals)), tapwire_hour_counts(array_agg(h), array_agg(replies))
FROM (SELECT app_id, tapwire_utc_day(hour) AS day, extract(hour FROM hour AT TIME ZONE 'UTC')::integer AS h,
             category, app_version, platform, delivered, opens, dismissals, replies
      FROM rollup_counts WHERE grain = 0) c
GROUP BY app_id, day, category, app_version, platform
ORDER BY 1, 2, 3, 4, 5;

INSERT INTO rollup_release_actions (app_id, day, category, app_version, platform, action, n)
SELECT app_id, day, category, app_version, platform, action, tapwire_hour_counts(array_agg(h), array_agg(n))
FROM (SELECT app_id, tapwire_utc_day(hour) AS day, extract(hour FROM hour AT TIME ZONE 'UTC')::integer AS h,
             category, app_version, platform, action, n
      FROM rollup_actions WHERE grain = 0) a
GROUP BY app_id, day, category, app_version, platform, action
ORDER BY 1, 2, 3, 4, 5, 6;

-- The fold of migration 0050, which also writes the two tables above, after the five others
-- (the same table order in every fold, so concurrent folds lock rows in the same order).
CREATE OR REPLACE FUNCTION tapwire_fold_rollup_deltas() RETURNS bigint
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
    ), release_counts AS (
        INSERT INTO rollup_release_counts AS t (app_id, day, category, app_version, platform, delivered, opens, dismissals, replies)
        SELECT app_id, day, category, app_version, platform,
               tapwire_hour_counts(array_agg(h), array_agg(n1)), tapwire_hour_counts(array_agg(h), array_agg(n4)),
               tapwire_hour_counts(array_agg(h), array_agg(n5)), tapwire_hour_counts(array_agg(h), array_agg(n7))
        FROM (SELECT app_id, tapwire_utc_day(bucket) AS day, extract(hour FROM bucket AT TIME ZONE 'UTC')::integer AS h,
                     category, app_version, platform, n1, n4, n5, n7
              FROM pending WHERE kind = 1 AND grain = 0) c
        GROUP BY app_id, day, category, app_version, platform
        ORDER BY app_id, day, category, app_version, platform
        ON CONFLICT (app_id, day, category, app_version, platform) DO UPDATE SET
            delivered = tapwire_add_hour_counts(t.delivered, EXCLUDED.delivered),
            opens = tapwire_add_hour_counts(t.opens, EXCLUDED.opens),
            dismissals = tapwire_add_hour_counts(t.dismissals, EXCLUDED.dismissals),
            replies = tapwire_add_hour_counts(t.replies, EXCLUDED.replies)
    ), release_actions AS (
        INSERT INTO rollup_release_actions AS t (app_id, day, category, app_version, platform, action, n)
        SELECT app_id, day, category, app_version, platform, action, tapwire_hour_counts(array_agg(h), array_agg(n1))
        FROM (SELECT app_id, tapwire_utc_day(bucket) AS day, extract(hour FROM bucket AT TIME ZONE 'UTC')::integer AS h,
                     category, app_version, platform, action, n1
              FROM pending WHERE kind = 2 AND grain = 0) a
        GROUP BY app_id, day, category, app_version, platform, action
        ORDER BY app_id, day, category, app_version, platform, action
        ON CONFLICT (app_id, day, category, app_version, platform, action) DO UPDATE SET
            n = tapwire_add_hour_counts(t.n, EXCLUDED.n)
    )
    SELECT count(*) INTO moved FROM pending;
    RETURN moved;
END
$fn$;
