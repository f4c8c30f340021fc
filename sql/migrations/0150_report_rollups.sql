-- 0150: rollups that grow with categories × days, not with campaigns × versions × platforms ×
-- hours (docs/reports.md, "How the rollups work").
--
-- The rollups of 0010-0100 kept every grain by app version, platform, campaign and variant, by
-- the hour and the quarter hour. An app with dozens of campaigns a day, forty versions and five
-- platforms has almost one such row per event: 3.8 rows per event over all grains, a 30-day
-- report reading millions of them. The report needs far less:
--   * totals over the range (counts by rich/text-only, actions, histogram bins): only the range's
--     edges must be exact, so its whole UTC days are read from rows of aligned blocks of 1, 2, 4,
--     8 and 16 days (at most two blocks of each size cover any run of days: a 30-day report reads
--     about 8 rows per category where it read 30) and the days its edges cut from quarter hours:
--     rollup_totals, rollup_total_actions, rollup_total_histograms (grain 0: quarter hours; grain
--     2: a day; grains 3 to 6: 2, 4, 8 and 16 days, `tapwire_day_block`);
--   * the daily engagement line by local day, in any zone: a row per UTC day and category whose
--     arrays hold the day's running sums at each of its 97 quarter-hour edges (every zone's
--     midnight is on a quarter hour, and a run of quarter hours is a difference of two elements):
--     rollup_trend;
--   * the dismiss base, per app version (the manifest of each version says whether dismissals are
--     measurable): by the blocks of days above (rollup_dismiss_base) and, for the days a range
--     cuts, by running sums per quarter hour (rollup_dismiss_quarters);
--   * the adjusted rich vs text-only difference: Mantel–Haenszel over strata of campaign ×
--     platform × UTC day (docs/reports.md says why these). A stratum's terms are not additive,
--     but its sums over strata are: rollup_strata keeps each stratum's four counts, and every
--     change to a stratum adds the change of its terms (computed exactly, in numeric) to the sums
--     of its category and day in rollup_uplift_days, which a report reads (a row per category and
--     day) and a look adds up day by day.
-- Filters and --by read raw events (sql/queries/report_raw_*.sql), exactly, at a cost that
-- grows with the events of the range. rollup_marginals keeps the daily counts by each single
-- dimension for dashboards.
--
-- A commit still stores the finest rows (quarter hours by every dimension, TapwireCore.RollupDeltas)
-- in rollup_delta_batches; the fold derives the rows of these tables in the collector and has
-- tapwire_fold_rollups() upsert them. The tables of 0010 (rollup_counts, rollup_actions,
-- rollup_histograms) and 0100's rollup_quarter_coverage are filled into these ones below, then
-- dropped.

-- The quarter hour of its UTC day an instant falls in, 0-95.
CREATE FUNCTION tapwire_quarter_of_day(t timestamptz) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN floor(date_part('epoch', t - tapwire_utc_day(t)) / 900)::integer;

-- A day's running sums at its 97 quarter-hour edges from (quarter of the day, count) pairs:
-- element q + 1 counts quarters 0 … q − 1, so element 1 is 0, element 97 the day, and quarters lo
-- to hi − 1 are element hi + 1 less element lo + 1. Running sums add element by element
-- (tapwire_add_hour_counts) as the counts do.
CREATE FUNCTION tapwire_quarter_running(quarters integer[], counts bigint[]) RETURNS bigint[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY(
    SELECT (coalesce(sum(sum(u.n)) OVER (ORDER BY q.edge ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))::bigint
    FROM generate_series(0, 96) AS q(edge)
    LEFT JOIN unnest(quarters, counts) AS u(quarter, n) ON u.quarter = q.edge
    GROUP BY q.edge
    ORDER BY q.edge);

-- The first day of the block of days of grain g that holds `day` (a UTC midnight): grain 2 is the
-- day itself, grains 3 to 6 blocks of 2, 4, 8 and 16 days, aligned on 1970-01-01.
CREATE FUNCTION tapwire_day_block(day timestamptz, grain integer) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN timestamptz '1970-01-01 00:00:00+00'
    + (floor(date_part('epoch', day) / 86400 / (1 << (grain - 2))) * (1 << (grain - 2))) * interval '86400 seconds';

-- A histogram's bins as two sorted arrays (bins, counts), merged by adding the counts of equal bins
-- (a bin whose count comes to 0, as when a rebuild takes a day out of its blocks, goes).
-- It returns a named type, not a record: Citus sends the statements that call it to the workers as
-- text, and a function returning a record in FROM would need a column definition list there.
CREATE TYPE tapwire_bins AS (bins smallint[], counts bigint[]);
CREATE FUNCTION tapwire_merge_bins(bins_a smallint[], counts_a bigint[], bins_b smallint[], counts_b bigint[])
RETURNS tapwire_bins
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$
    SELECT coalesce(array_agg(b ORDER BY b), '{}'), coalesce(array_agg(n ORDER BY b), '{}')
    FROM (SELECT b, sum(n)::bigint AS n
          FROM (SELECT * FROM unnest(bins_a, counts_a) AS x(b, n) UNION ALL SELECT * FROM unnest(bins_b, counts_b) AS y(b, n)) u
          GROUP BY b
          HAVING sum(n) <> 0) s
$fn$;

-- a / b rounded to 20 decimals (a is given 20 decimals first, so the quotient has them all).
CREATE FUNCTION tapwire_ratio(a numeric, b numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN round(a * 1.00000000000000000000 / b, 20);

-- What one stratum of the adjusted rich vs text-only difference adds to the sums of its category
-- and day, from its four counts (rich delivered and engaged, text-only delivered and engaged).
-- The formulas are those of TapwireCore.MantelHaenszelSums.add (Greenland & Robins 1985; Sato 1989;
-- the Cochran–Mantel–Haenszel statistic), on the stratum's used cells (docs/reports.md, "Which
-- notifications a figure counts"): a side with no delivery, or with more engaged than delivered,
-- contributes nothing. Every ratio is rounded to 20 decimals, so a stratum's terms are a fixed
-- function of its counts, and a sum of terms is exact whatever the order it was added in: the
-- sums the fold keeps by adding each change of a stratum's terms equal a recomputation, digit for
-- digit.
-- It returns its one row as a set, which lets the planner inline it (a SQL function returning a
-- set, not STRICT) into the query that calls it in FROM: its arithmetic costs no call. The set is
-- of a named type, not of records, for Citus (as tapwire_merge_bins).
CREATE TYPE tapwire_uplift_term AS (strata integer, excluded_delivered bigint,
    weights numeric, numerator numeric, p numeric, q numeric, null_sum numeric, deviation numeric,
    used_rich_delivered bigint, used_rich_engaged bigint, used_text_delivered bigint, used_text_engaged bigint,
    both_rich_delivered bigint, both_rich_engaged bigint, both_text_delivered bigint, both_text_engaged bigint,
    not_meaningful_delivered bigint, engaged_without_deliveries bigint);
CREATE FUNCTION tapwire_uplift_terms(rich_delivered bigint, rich_engaged bigint, text_delivered bigint, text_engaged bigint)
RETURNS SETOF tapwire_uplift_term
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 1
AS $fn$
    SELECT (n1 > 0 AND n2 > 0)::integer,
           CASE WHEN n1 > 0 AND n2 > 0 THEN 0 ELSE n1 + n2 END,
           CASE WHEN n1 > 0 AND n2 > 0 THEN tapwire_ratio(n1 * n2, n1 + n2) ELSE 0 END,
           CASE WHEN n1 > 0 AND n2 > 0 THEN tapwire_ratio(x1 * n2 - x2 * n1, n1 + n2) ELSE 0 END,
           CASE WHEN n1 > 0 AND n2 > 0
                THEN tapwire_ratio(2 * (n1 * n1 * x2 - n2 * n2 * x1) + n1 * n2 * (n2 - n1), 2 * (n1 + n2) * (n1 + n2))
                ELSE 0 END,
           CASE WHEN n1 > 0 AND n2 > 0 THEN tapwire_ratio(x1 * (n2 - x2) + x2 * (n1 - x1), 2 * (n1 + n2)) ELSE 0 END,
           CASE WHEN n1 > 0 AND n2 > 0 AND n1 + n2 > 1
                THEN tapwire_ratio(n1 * n2 * (x1 + x2) * (n1 + n2 - x1 - x2), (n1 + n2) * (n1 + n2) * (n1 + n2 - 1))
                ELSE 0 END,
           CASE WHEN n1 > 0 AND n2 > 0 THEN tapwire_ratio(x1 * (n1 + n2) - n1 * (x1 + x2), n1 + n2) ELSE 0 END,
           n1::bigint, x1::bigint, n2::bigint, x2::bigint,
           CASE WHEN n1 > 0 AND n2 > 0 THEN n1 ELSE 0 END::bigint, CASE WHEN n1 > 0 AND n2 > 0 THEN x1 ELSE 0 END::bigint,
           CASE WHEN n1 > 0 AND n2 > 0 THEN n2 ELSE 0 END::bigint, CASE WHEN n1 > 0 AND n2 > 0 THEN x2 ELSE 0 END::bigint,
           (CASE WHEN rich_delivered > 0 AND rich_engaged > rich_delivered THEN rich_delivered ELSE 0 END
            + CASE WHEN text_delivered > 0 AND text_engaged > text_delivered THEN text_delivered ELSE 0 END)::bigint,
           (CASE WHEN rich_delivered = 0 THEN rich_engaged ELSE 0 END + CASE WHEN text_delivered = 0 THEN text_engaged ELSE 0 END)::bigint
    FROM (SELECT CASE WHEN rich_delivered > 0 AND rich_engaged <= rich_delivered THEN rich_delivered ELSE 0 END::numeric AS n1,
                 CASE WHEN rich_delivered > 0 AND rich_engaged <= rich_delivered THEN rich_engaged ELSE 0 END::numeric AS x1,
                 CASE WHEN text_delivered > 0 AND text_engaged <= text_delivered THEN text_delivered ELSE 0 END::numeric AS n2,
                 CASE WHEN text_delivered > 0 AND text_engaged <= text_delivered THEN text_engaged ELSE 0 END::numeric AS x2) c
$fn$;

-- The SQL side of the report's dimensions (TapwireCore/Dimension.swift, the one declaration of
-- each, which a test holds to these two functions): an event's value for a dimension by its name,
-- and whether an event passes filters given as one element per dimension in Dimension.allCases
-- order (appVersion, platform, campaign, variant, os), NULL where there is none. A missing
-- campaign or variant is '', the OS is its major version. A new dimension replaces both.
-- They take an event's columns, not its row: Citus sends the statements that call them to each
-- shard, whose rows are of the shard's own type (events_102008, …), not of `events`.
CREATE FUNCTION tapwire_dimension_value(dimension text, app_version text, platform text, campaign text, variant text,
                                        os_version text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE dimension
    WHEN 'appVersion' THEN app_version
    WHEN 'platform' THEN platform
    WHEN 'campaign' THEN coalesce(campaign, '')
    WHEN 'variant' THEN coalesce(variant, '')
    WHEN 'os' THEN split_part(coalesce(os_version, ''), '.', 1)
    ELSE '' END;

CREATE FUNCTION tapwire_event_matches(filters text[], app_version text, platform text, campaign text, variant text,
                                      os_version text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (filters[1] IS NULL OR app_version = filters[1])
   AND (filters[2] IS NULL OR platform = filters[2])
   AND (filters[3] IS NULL OR coalesce(campaign, '') = filters[3])
   AND (filters[4] IS NULL OR coalesce(variant, '') = filters[4])
   AND (filters[5] IS NULL OR split_part(coalesce(os_version, ''), '.', 1) = filters[5]);

-- Totals over the range by category and rich/text-only. grain 0: quarter hours; grain 2: UTC days
-- (`bucket` is the day's midnight); grains 3 to 6: blocks of 2, 4, 8 and 16 days (`bucket` is the
-- block's first midnight, tapwire_day_block). A report reads the whole UTC days of its range from
-- the fewest blocks that cover them and the parts of the days its edges cut from grain 0 (the
-- minutes off a quarter hour from events).
CREATE TABLE rollup_totals (
    app_id          bigint      NOT NULL,
    grain           smallint    NOT NULL CHECK (grain IN (0, 2, 3, 4, 5, 6)),
    bucket          timestamptz NOT NULL,
    category        text        NOT NULL,
    has_media       boolean     NOT NULL,
    -- What the columns of 0010's rollup_counts counted, over every dimension.
    delivered       bigint      NOT NULL,
    sent            bigint      NOT NULL,
    media_requested bigint      NOT NULL,
    opens           bigint      NOT NULL,
    dismissals      bigint      NOT NULL,
    actions         bigint      NOT NULL,
    replies         bigint      NOT NULL,
    PRIMARY KEY (app_id, grain, bucket, category, has_media)
);

-- Responses per registered action, at the grains of rollup_totals.
CREATE TABLE rollup_total_actions (
    app_id   bigint      NOT NULL,
    grain    smallint    NOT NULL CHECK (grain IN (0, 2, 3, 4, 5, 6)),
    bucket   timestamptz NOT NULL,
    category text        NOT NULL,
    action   text        NOT NULL,
    n        bigint      NOT NULL,
    PRIMARY KEY (app_id, grain, bucket, category, action)
);

-- The percentile histograms (metric 1: reply length, 2: seconds from delivery to an engaged
-- response; bins as in 0010), at the grains of rollup_totals: one row per bucket, category and
-- metric holding the bins that have responses (sorted) and their counts, since a quarter hour has
-- a few dozen of the 600 bins.
CREATE TABLE rollup_total_histograms (
    app_id   bigint      NOT NULL,
    grain    smallint    NOT NULL CHECK (grain IN (0, 2, 3, 4, 5, 6)),
    bucket   timestamptz NOT NULL,
    category text        NOT NULL,
    metric   smallint    NOT NULL CHECK (metric IN (1, 2)),
    bins     smallint[]  NOT NULL,
    counts   bigint[]    NOT NULL CHECK (cardinality(counts) = cardinality(bins)),
    PRIMARY KEY (app_id, grain, bucket, category, metric)
);

-- The daily engagement line: per UTC day and category, delivered and engaged (opens and
-- registered actions) as running sums at the day's 97 quarter-hour edges (tapwire_quarter_running).
-- A local day in any zone is a run of quarter hours of one or two UTC days, so a 30-day report
-- reads 31 rows per category, two elements of each array per local day it touches.
CREATE TABLE rollup_trend (
    app_id            bigint      NOT NULL,
    day               timestamptz NOT NULL,
    category          text        NOT NULL,
    delivered_running bigint[]    NOT NULL CHECK (cardinality(delivered_running) = 97),
    engaged_running   bigint[]    NOT NULL CHECK (cardinality(engaged_running) = 97),
    PRIMARY KEY (app_id, day, category)
) WITH (fillfactor = 70);

-- The dismiss base: per category and app version, delivered and dismissals, by the blocks of days
-- of rollup_totals (grains 2 to 6). Dismissals are measurable for a version only when its manifest
-- registers the category with customDismissAction, which the report knows only when it runs; it
-- reads the rows of those versions alone.
CREATE TABLE rollup_dismiss_base (
    app_id      bigint      NOT NULL,
    grain       smallint    NOT NULL CHECK (grain IN (2, 3, 4, 5, 6)),
    bucket      timestamptz NOT NULL,
    category    text        NOT NULL,
    app_version text        NOT NULL,
    delivered   bigint      NOT NULL,
    dismissals  bigint      NOT NULL,
    PRIMARY KEY (app_id, grain, bucket, category, app_version)
);

-- The dismiss base of the days a range cuts: per UTC day, category and app version, running sums
-- at the day's quarter-hour edges, as rollup_trend keeps them.
CREATE TABLE rollup_dismiss_quarters (
    app_id             bigint      NOT NULL,
    day                timestamptz NOT NULL,
    category           text        NOT NULL,
    app_version        text        NOT NULL,
    delivered_running  bigint[]    NOT NULL CHECK (cardinality(delivered_running) = 97),
    dismissals_running bigint[]    NOT NULL CHECK (cardinality(dismissals_running) = 97),
    PRIMARY KEY (app_id, day, category, app_version)
) WITH (fillfactor = 70);

-- The strata of the adjusted difference: one row per category, campaign ('' for none),
-- platform and UTC day, with both sides' delivered and engaged.
CREATE TABLE rollup_strata (
    app_id         bigint      NOT NULL,
    day            timestamptz NOT NULL,
    category       text        NOT NULL,
    campaign       text        NOT NULL,
    platform       text        NOT NULL,
    rich_delivered bigint      NOT NULL,
    rich_engaged   bigint      NOT NULL,
    text_delivered bigint      NOT NULL,
    text_engaged   bigint      NOT NULL,
    PRIMARY KEY (app_id, day, category, campaign, platform)
);

-- The sums over the strata of one category and UTC day (tapwire_uplift_terms), kept by the fold.
CREATE TABLE rollup_uplift_days (
    app_id                     bigint      NOT NULL,
    day                        timestamptz NOT NULL,
    category                   text        NOT NULL,
    strata                     bigint      NOT NULL,
    excluded_delivered         bigint      NOT NULL,
    weights                    numeric     NOT NULL,
    numerator                  numeric     NOT NULL,
    p                          numeric     NOT NULL,
    q                          numeric     NOT NULL,
    null_sum                   numeric     NOT NULL,
    deviation                  numeric     NOT NULL,
    used_rich_delivered        bigint      NOT NULL,
    used_rich_engaged          bigint      NOT NULL,
    used_text_delivered        bigint      NOT NULL,
    used_text_engaged          bigint      NOT NULL,
    both_rich_delivered        bigint      NOT NULL,
    both_rich_engaged          bigint      NOT NULL,
    both_text_delivered        bigint      NOT NULL,
    both_text_engaged          bigint      NOT NULL,
    not_meaningful_delivered   bigint      NOT NULL,
    engaged_without_deliveries bigint      NOT NULL,
    PRIMARY KEY (app_id, day, category)
);

-- Daily counts by one dimension at a time (dimension: appVersion, platform, campaign, variant or
-- os, the report's names; value '' when the event had none), for dashboards that filter by one.
CREATE TABLE rollup_marginals (
    app_id    bigint      NOT NULL,
    day       timestamptz NOT NULL,
    dimension text        NOT NULL,
    value     text        NOT NULL,
    category  text        NOT NULL,
    has_media boolean     NOT NULL,
    delivered bigint      NOT NULL,
    sent      bigint      NOT NULL,
    opens     bigint      NOT NULL,
    actions   bigint      NOT NULL,
    PRIMARY KEY (app_id, day, dimension, value, category, has_media)
);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('rollup_totals', 'distributed', 'report rollup, co-located with events'),
    ('rollup_total_actions', 'distributed', 'report rollup, co-located with events'),
    ('rollup_total_histograms', 'distributed', 'report rollup, co-located with events'),
    ('rollup_trend', 'distributed', 'report rollup, co-located with events'),
    ('rollup_dismiss_base', 'distributed', 'report rollup, co-located with events'),
    ('rollup_dismiss_quarters', 'distributed', 'report rollup, co-located with events'),
    ('rollup_strata', 'distributed', 'report rollup, co-located with events'),
    ('rollup_uplift_days', 'distributed', 'report rollup, co-located with its strata'),
    ('rollup_marginals', 'distributed', 'dashboard rollup, co-located with events');
SELECT tapwire_apply_citus_layout();

-- The fold's rows for the tables above travel through rollup_deltas too (kinds 11-20, written by
-- TapwireStore's fold and upserted by tapwire_fold_rollups()), a row per key of its table, as
-- the table holds it: marginals name their dimension, a histogram comes as its bins and counts,
-- and a day's running sums or hours come trimmed (a1-a4 from element first_slot on: see
-- tapwire_running_slots and tapwire_hour_slots), since a fold's few minutes touch a few slots.
ALTER TABLE rollup_deltas DROP CONSTRAINT rollup_deltas_kind_check;
ALTER TABLE rollup_deltas ADD CONSTRAINT rollup_deltas_kind_check CHECK (kind BETWEEN 1 AND 5 OR kind BETWEEN 11 AND 20);
ALTER TABLE rollup_deltas ADD COLUMN dimension text, ADD COLUMN value text, ADD COLUMN first_slot smallint,
    ADD COLUMN a1 bigint[], ADD COLUMN a2 bigint[], ADD COLUMN a3 bigint[], ADD COLUMN a4 bigint[], ADD COLUMN bins smallint[];

-- A day's 97 running sums sent trimmed: `lead` zeros, then `body` (at least one element), then
-- body's last element repeated. array_fill and || are built in, so this costs no row-by-row work.
CREATE FUNCTION tapwire_running_slots(lead smallint, body bigint[]) RETURNS bigint[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN array_fill(0::bigint, ARRAY[lead::integer]) || body
    || array_fill(body[cardinality(body)], ARRAY[97 - lead - cardinality(body)]);

-- A day's 24 hour counts sent trimmed: `lead` zeros, then `body`, then zeros.
CREATE FUNCTION tapwire_hour_slots(lead smallint, body bigint[]) RETURNS bigint[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN array_fill(0::bigint, ARRAY[lead::integer]) || body || array_fill(0::bigint, ARRAY[24 - lead - cardinality(body)]);

-- A commit's finest rows now carry the OS major version of the batch's context; a collector of
-- the previous version appends none (an empty array: every element '').
ALTER TABLE rollup_delta_batches ADD COLUMN os text[] NOT NULL DEFAULT '{}';
-- From now on a batch without it is refused: only a collector older than this migration appends
-- one (it does not name the column, so the default is evaluated), and its events' OS would be
-- missing from rollup_marginals. Its commit fails as a server that cannot take the work now
-- (57P03), which that collector answers with 503 and Retry-After: the client or the balancer
-- takes the batch to an upgraded collector, so nothing acknowledged is lost and nothing is
-- counted without its OS. The batches such collectors appended before (pending now) keep '{}':
-- the fold adds no OS marginal for them, since the OS marginals below are counted from the
-- events, theirs included. docs/deployment.md, "Upgrading a fleet across migration 0150".
CREATE FUNCTION tapwire_refuse_batch_without_os() RETURNS text[]
LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION 'a collector older than migration 0150 appended a batch of rollup deltas; upgrade it'
        USING ERRCODE = '57P03';
END
$fn$;
ALTER TABLE rollup_delta_batches ALTER COLUMN os SET DEFAULT tapwire_refuse_batch_without_os();
ALTER TABLE rollup_delta_batches ADD CONSTRAINT rollup_delta_batches_os_check
    CHECK (cardinality(os) = 0 OR cardinality(os) = cardinality(kind));

-- Upserts the pending rows of kinds 4, 5 and 11-20 into the rollups, each table in key order and
-- always in the same order, so concurrent folds lock rows in the same order. Rows of kinds 11-20
-- come from one fold, a row per key, ready to store (TapwireStore's RollupDeltaRows.forEachRow),
-- so they are upserted as they are; kinds 4 and 5 are summed per key, since a collector older
-- than 0060 appended them commit by commit. A stratum's upsert returns its new counts; less the
-- change the fold added, that gives its old counts, and the change of its terms is added to its
-- day's sums. The join of the two is hashed: the planner cannot know how many rows the fold
-- brought (rollup_deltas is empty whenever it is analysed), and a nested loop over a fold of a
-- hundred thousand strata would compare every pair.
CREATE FUNCTION tapwire_fold_rollups() RETURNS bigint
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

-- What is already stored, moved into the tables above from the rollups of 0010-0100, which hold
-- everything these do but the OS (rollup_marginals counts it from the events, below).
-- Quarter hours exist from rollup_quarter_coverage.complete_from on (of apps with a row); before
-- it, the running sums of rollup_trend and rollup_dismiss_quarters hold each hour in its first
-- quarter, which the report only ever reads as part of a whole hour (TapwireReport/ReportPlan.swift).
-- The lock keeps folds of collectors of the previous version out while it is copied.
LOCK TABLE rollup_counts, rollup_actions, rollup_histograms IN EXCLUSIVE MODE;

CREATE TEMP TABLE migrated_coverage ON COMMIT DROP AS
SELECT a.app_id, coalesce(c.complete_from, '-infinity'::timestamptz) AS complete_from
FROM apps a LEFT JOIN rollup_quarter_coverage c USING (app_id);

-- The blocks of days each day of the previous rollups lies in: grains 2 to 6.
CREATE TEMP TABLE migrated_blocks ON COMMIT DROP AS
SELECT g::smallint AS grain FROM generate_series(2, 6) AS g;

INSERT INTO rollup_totals (app_id, grain, bucket, category, has_media, delivered, sent, media_requested, opens, dismissals, actions, replies)
SELECT app_id, grain, bucket, category, has_media, sum(delivered), sum(sent), sum(media_requested), sum(opens), sum(dismissals),
       sum(actions), sum(replies)
FROM (SELECT r.app_id, b.grain, tapwire_day_block(r.hour, b.grain) AS bucket, r.category, r.has_media, r.delivered, r.sent,
             r.media_requested, r.opens, r.dismissals, r.actions, r.replies
      FROM rollup_counts r CROSS JOIN migrated_blocks b WHERE r.grain = 4
      UNION ALL
      SELECT app_id, 0, hour, category, has_media, delivered, sent, media_requested, opens, dismissals, actions, replies
      FROM rollup_counts WHERE grain = 6) t
GROUP BY app_id, grain, bucket, category, has_media
ORDER BY 1, 2, 3, 4, 5;

INSERT INTO rollup_total_actions (app_id, grain, bucket, category, action, n)
SELECT app_id, grain, bucket, category, action, sum(n)
FROM (SELECT r.app_id, b.grain, tapwire_day_block(r.hour, b.grain) AS bucket, r.category, r.action, r.n
      FROM rollup_actions r CROSS JOIN migrated_blocks b WHERE r.grain = 3
      UNION ALL
      SELECT app_id, 0, hour, category, action, n FROM rollup_actions WHERE grain = 5) t
GROUP BY app_id, grain, bucket, category, action
ORDER BY 1, 2, 3, 4, 5;

INSERT INTO rollup_total_histograms (app_id, grain, bucket, category, metric, bins, counts)
SELECT app_id, grain, bucket, category, metric, array_agg(bin ORDER BY bin), array_agg(n ORDER BY bin)
FROM (SELECT app_id, grain, bucket, category, metric, bin, sum(n)::bigint AS n
      FROM (SELECT r.app_id, b.grain, tapwire_day_block(r.hour, b.grain) AS bucket, r.category, r.metric, r.bin, r.n
            FROM rollup_histograms r CROSS JOIN migrated_blocks b WHERE r.grain = 3
            UNION ALL
            SELECT app_id, 0, hour, category, metric, bin, n FROM rollup_histograms WHERE grain = 5) u
      GROUP BY 1, 2, 3, 4, 5, 6) t
GROUP BY app_id, grain, bucket, category, metric
ORDER BY 1, 2, 3, 4, 5;

-- The quarter-hour and hour counts by category and app version the running sums are made of:
-- grain 6 from complete_from on, grain 1 for the hours wholly before it, and for the hour
-- complete_from falls in, its hour less its quarters from complete_from on, in the hour's first
-- quarter.
CREATE TEMP TABLE migrated_quarters ON COMMIT DROP AS
SELECT r.app_id, r.hour AS quarter, r.category, r.app_version, sum(r.delivered) AS delivered,
       sum(r.opens + r.actions) AS engaged, sum(r.dismissals) AS dismissals
FROM rollup_counts r JOIN migrated_coverage c USING (app_id)
WHERE r.grain = 6 AND r.hour >= c.complete_from
GROUP BY 1, 2, 3, 4
UNION ALL
SELECT h.app_id, h.hour, h.category, h.app_version,
       h.delivered - coalesce(q.delivered, 0), h.engaged - coalesce(q.engaged, 0), h.dismissals - coalesce(q.dismissals, 0)
FROM (SELECT r.app_id, r.hour, r.category, r.app_version, sum(r.delivered) AS delivered, sum(r.opens + r.actions) AS engaged,
             sum(r.dismissals) AS dismissals
      FROM rollup_counts r JOIN migrated_coverage c USING (app_id)
      WHERE r.grain = 1 AND r.hour < c.complete_from
      GROUP BY 1, 2, 3, 4) h
LEFT JOIN (SELECT r.app_id, tapwire_hour(r.hour) AS hour, r.category, r.app_version, sum(r.delivered) AS delivered,
                  sum(r.opens + r.actions) AS engaged, sum(r.dismissals) AS dismissals
           FROM rollup_counts r JOIN migrated_coverage c USING (app_id)
           WHERE r.grain = 6 AND r.hour >= c.complete_from AND tapwire_hour(r.hour) < c.complete_from
           GROUP BY 1, 2, 3, 4) q USING (app_id, hour, category, app_version);

INSERT INTO rollup_trend (app_id, day, category, delivered_running, engaged_running)
SELECT app_id, tapwire_utc_day(quarter), category,
       tapwire_quarter_running(array_agg(tapwire_quarter_of_day(quarter)), array_agg(delivered)),
       tapwire_quarter_running(array_agg(tapwire_quarter_of_day(quarter)), array_agg(engaged))
FROM (SELECT app_id, quarter, category, sum(delivered)::bigint AS delivered, sum(engaged)::bigint AS engaged
      FROM migrated_quarters GROUP BY 1, 2, 3 HAVING sum(delivered) <> 0 OR sum(engaged) <> 0) t
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3;

INSERT INTO rollup_dismiss_quarters (app_id, day, category, app_version, delivered_running, dismissals_running)
SELECT app_id, tapwire_utc_day(quarter), category, app_version,
       tapwire_quarter_running(array_agg(tapwire_quarter_of_day(quarter)), array_agg(delivered::bigint)),
       tapwire_quarter_running(array_agg(tapwire_quarter_of_day(quarter)), array_agg(dismissals::bigint))
FROM migrated_quarters
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4;

INSERT INTO rollup_dismiss_base (app_id, grain, bucket, category, app_version, delivered, dismissals)
SELECT q.app_id, b.grain, tapwire_day_block(tapwire_utc_day(q.quarter), b.grain), q.category, q.app_version, sum(q.delivered),
       sum(q.dismissals)
FROM migrated_quarters q CROSS JOIN migrated_blocks b
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5;

INSERT INTO rollup_strata (app_id, day, category, campaign, platform, rich_delivered, rich_engaged, text_delivered, text_engaged)
SELECT app_id, hour, category, campaign, platform,
       coalesce(sum(delivered) FILTER (WHERE has_media), 0), coalesce(sum(opens + actions) FILTER (WHERE has_media), 0),
       coalesce(sum(delivered) FILTER (WHERE NOT has_media), 0), coalesce(sum(opens + actions) FILTER (WHERE NOT has_media), 0)
FROM rollup_counts
WHERE grain = 4
GROUP BY app_id, hour, category, campaign, platform
HAVING sum(delivered) <> 0 OR sum(opens + actions) <> 0
ORDER BY 1, 2, 3, 4, 5;

INSERT INTO rollup_uplift_days (app_id, day, category, strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation,
    used_rich_delivered, used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged,
    both_text_delivered, both_text_engaged, not_meaningful_delivered, engaged_without_deliveries)
SELECT s.app_id, s.day, s.category, sum(t.strata), sum(t.excluded_delivered), sum(t.weights), sum(t.numerator), sum(t.p), sum(t.q),
       sum(t.null_sum), sum(t.deviation), sum(t.used_rich_delivered), sum(t.used_rich_engaged), sum(t.used_text_delivered),
       sum(t.used_text_engaged), sum(t.both_rich_delivered), sum(t.both_rich_engaged), sum(t.both_text_delivered),
       sum(t.both_text_engaged), sum(t.not_meaningful_delivered), sum(t.engaged_without_deliveries)
FROM rollup_strata s
CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, s.rich_engaged, s.text_delivered, s.text_engaged) t
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3;

-- The OS marginals are counted from the events where they are still stored (the old rollups never
-- kept the OS), and are '' only for the days `tapwire retention` dropped the events of. The events
-- read are every event committed before this statement, so they include the events of batches
-- still pending, which the fold then folds without an OS marginal (their rows carry no OS).
-- PL/pgSQL, so the horizon is a constant in each statement (on Citus, the statements are sent to
-- the shards, where the retention functions do not exist).
DO $do$
DECLARE
    horizon timestamptz := coalesce(tapwire_retention_horizon(), '-infinity');
BEGIN
    INSERT INTO rollup_marginals (app_id, day, dimension, value, category, has_media, delivered, sent, opens, actions)
    SELECT app_id, tapwire_utc_day(hour), d.dimension, d.value, category, has_media, sum(delivered), sum(sent), sum(opens), sum(actions)
    FROM rollup_counts
    CROSS JOIN LATERAL (VALUES ('appVersion', app_version), ('platform', platform), ('campaign', campaign), ('variant', variant),
                               ('os', '')) AS d(dimension, value)
    WHERE grain = 0 AND (d.dimension <> 'os' OR hour < horizon)
    GROUP BY 1, 2, 3, 4, 5, 6
    HAVING sum(delivered) <> 0 OR sum(sent) <> 0 OR sum(opens) <> 0 OR sum(actions) <> 0
    ORDER BY 1, 2, 3, 4, 5, 6;

    INSERT INTO rollup_marginals (app_id, day, dimension, value, category, has_media, delivered, sent, opens, actions)
    SELECT e.app_id, tapwire_utc_day(e.event_time), 'os', split_part(coalesce(e.os_version, ''), '.', 1), e.category, e.has_media,
        count(*) FILTER (WHERE e.type = 'delivered'),
        count(*) FILTER (WHERE e.type = 'sent'),
        count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier = 'com.apple.UNNotificationDefaultActionIdentifier'),
        count(*) FILTER (WHERE e.type = 'response' AND e.action_identifier NOT IN
            ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier'))
    FROM events e
    WHERE e.event_time >= horizon
    GROUP BY 1, 2, 3, 4, 5, 6
    HAVING count(*) FILTER (WHERE e.type IN ('delivered', 'sent') OR (e.type = 'response'
                                  AND e.action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier')) > 0
    ORDER BY 1, 2, 3, 4, 5, 6;
END
$do$;

DROP TABLE rollup_counts, rollup_actions, rollup_histograms;
DELETE FROM tapwire_table_layout WHERE table_name IN ('rollup_counts', 'rollup_actions', 'rollup_histograms');

-- A collector of the previous version folds through this function, before every report and
-- check it serves: it would write the tables just dropped. It fails instead, with the SQLSTATE
-- of a server that cannot take the work now (57P03), which that collector answers with 503 and
-- Retry-After: its reports and checks are refused, never wrong, while it still stores every
-- batch it is sent, whose rows stay pending for this version's folds (rollup_delta_batches holds
-- the finest rows either way). docs/deployment.md, "Upgrading a fleet".
CREATE OR REPLACE FUNCTION tapwire_fold_rollup_deltas() RETURNS bigint
LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION 'the rollups were rebuilt by migration 0150; this collector predates it and must be upgraded'
        USING ERRCODE = '57P03';
END
$fn$;

-- A rebuilt day's blocks of days (grains 3 to 6 that hold it: `grains`, their first midnights
-- `starts` and ends `stops`, computed by TapwireCore's RollupRows.Grain.block) made again from the
-- day rows (grain 2) of their days, for `app` or every app when NULL: whatever they held before, a
-- rebuild leaves every block the sum of its days (sql/queries/rollups_rebuild_blocks.sql). One
-- statement per table: Citus sends a single statement that writes several distributed tables to a
-- worker whole, where it cannot run.
CREATE FUNCTION tapwire_rebuild_blocks(app bigint, grains smallint[], starts timestamptz[], stops timestamptz[]) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
    DELETE FROM rollup_totals t
    USING unnest(grains, starts) AS b(grain, start)
    WHERE (app IS NULL OR t.app_id = app) AND t.grain = b.grain AND t.bucket = b.start;
    DELETE FROM rollup_total_actions t
    USING unnest(grains, starts) AS b(grain, start)
    WHERE (app IS NULL OR t.app_id = app) AND t.grain = b.grain AND t.bucket = b.start;
    DELETE FROM rollup_total_histograms t
    USING unnest(grains, starts) AS b(grain, start)
    WHERE (app IS NULL OR t.app_id = app) AND t.grain = b.grain AND t.bucket = b.start;
    DELETE FROM rollup_dismiss_base t
    USING unnest(grains, starts) AS b(grain, start)
    WHERE (app IS NULL OR t.app_id = app) AND t.grain = b.grain AND t.bucket = b.start;
    INSERT INTO rollup_totals (app_id, grain, bucket, category, has_media, delivered, sent, media_requested, opens, dismissals,
                               actions, replies)
    SELECT d.app_id, b.grain, b.start, d.category, d.has_media, sum(d.delivered), sum(d.sent), sum(d.media_requested), sum(d.opens),
           sum(d.dismissals), sum(d.actions), sum(d.replies)
    FROM unnest(grains, starts, stops) AS b(grain, start, stop) JOIN rollup_totals d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
    WHERE (app IS NULL OR d.app_id = app)
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5;
    INSERT INTO rollup_total_actions (app_id, grain, bucket, category, action, n)
    SELECT d.app_id, b.grain, b.start, d.category, d.action, sum(d.n)
    FROM unnest(grains, starts, stops) AS b(grain, start, stop) JOIN rollup_total_actions d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
    WHERE (app IS NULL OR d.app_id = app)
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5;
    INSERT INTO rollup_total_histograms (app_id, grain, bucket, category, metric, bins, counts)
    SELECT app_id, grain, start, category, metric, array_agg(bin ORDER BY bin), array_agg(n ORDER BY bin)
    FROM (SELECT d.app_id, b.grain, b.start, d.category, d.metric, u.bin, sum(u.n)::bigint AS n
          FROM unnest(grains, starts, stops) AS b(grain, start, stop) JOIN rollup_total_histograms d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
          CROSS JOIN LATERAL unnest(d.bins, d.counts) AS u(bin, n)
          WHERE (app IS NULL OR d.app_id = app)
          GROUP BY 1, 2, 3, 4, 5, 6) s
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5;
    INSERT INTO rollup_dismiss_base (app_id, grain, bucket, category, app_version, delivered, dismissals)
    SELECT d.app_id, b.grain, b.start, d.category, d.app_version, sum(d.delivered), sum(d.dismissals)
    FROM unnest(grains, starts, stops) AS b(grain, start, stop) JOIN rollup_dismiss_base d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
    WHERE (app IS NULL OR d.app_id = app)
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5;
END
$fn$;
