-- 0060: a group commit appends its rollup deltas as one row of arrays per app (an element per
-- delta) instead of one row per delta, and the fold sums them in Swift (in the collector, or in
-- whichever tapwire process folds: a report, a mismatch check, a rebuild).
--
-- A commit of a thousand events added several hundred deltas (every grain of every table, see
-- TapwireCore/RollupDeltas.swift); appending them a row each and folding them in SQL
-- (migration 0050) took about a third of the database's statement time per event. Now the
-- commit writes one tuple per app (its arrays stored out of line); the fold takes the pending
-- rows with one `COPY (DELETE … RETURNING …) TO STDOUT`, sums the deltas per key, derives the
-- coarser grains, and writes each key once, through rollup_deltas and tapwire_fold_rollup_deltas(),
-- in the same transaction (TapwireStore/RollupStore.swift). Every delta is still added exactly
-- once: concurrent folds delete disjoint rows, and a fold that fails rolls back its delete.
--
-- rollup_deltas keeps its role for a collector of the previous version, still running during a
-- rolling upgrade: it appends there, its fold folds there, and so does every fold of this one.

CREATE TABLE rollup_delta_batches (
    -- One row per commit and app: the key Citus distributes it by, like the rollups.
    app_id              bigint        NOT NULL,
    -- Each array column holds one element per delta, in the same order; the columns are those
    -- of rollup_deltas (migration 0050), with type as text (the enum's label; cast on fold).
    kind                smallint[]    NOT NULL,
    grain               smallint[]    NOT NULL,
    bucket              timestamptz[] NOT NULL,
    category            text[]        NOT NULL,
    app_version         text[]        NOT NULL,
    platform            text[]        NOT NULL,
    campaign            text[]        NOT NULL,
    variant             text[]        NOT NULL,
    has_media           boolean[]     NOT NULL,
    action              text[]        NOT NULL,
    metric              smallint[]    NOT NULL,
    bin                 smallint[]    NOT NULL,
    type                text[]        NOT NULL,
    category_registered smallint[]    NOT NULL,
    n1 bigint[] NOT NULL, n2 bigint[] NOT NULL, n3 bigint[] NOT NULL, n4 bigint[] NOT NULL,
    n5 bigint[] NOT NULL, n6 bigint[] NOT NULL, n7 bigint[] NOT NULL,
    first_seen          timestamptz[] NOT NULL,
    last_seen           timestamptz[] NOT NULL,
    -- Every array has as many elements as kind (unnest would pad a shorter one with NULLs).
    CHECK (cardinality(grain) = cardinality(kind)
       AND cardinality(bucket) = cardinality(kind) AND cardinality(category) = cardinality(kind)
       AND cardinality(app_version) = cardinality(kind) AND cardinality(platform) = cardinality(kind)
       AND cardinality(campaign) = cardinality(kind) AND cardinality(variant) = cardinality(kind)
       AND cardinality(has_media) = cardinality(kind) AND cardinality(action) = cardinality(kind)
       AND cardinality(metric) = cardinality(kind) AND cardinality(bin) = cardinality(kind)
       AND cardinality(type) = cardinality(kind) AND cardinality(category_registered) = cardinality(kind)
       AND cardinality(n1) = cardinality(kind) AND cardinality(n2) = cardinality(kind)
       AND cardinality(n3) = cardinality(kind) AND cardinality(n4) = cardinality(kind)
       AND cardinality(n5) = cardinality(kind) AND cardinality(n6) = cardinality(kind)
       AND cardinality(n7) = cardinality(kind) AND cardinality(first_seen) = cardinality(kind)
       AND cardinality(last_seen) = cardinality(kind))
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 500,
        autovacuum_vacuum_insert_scale_factor = 0, autovacuum_vacuum_insert_threshold = 500,
        toast.autovacuum_vacuum_scale_factor = 0, toast.autovacuum_vacuum_threshold = 5000,
        toast.autovacuum_vacuum_insert_scale_factor = 0, toast.autovacuum_vacuum_insert_threshold = 5000);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('rollup_delta_batches', 'distributed', 'pending rollup deltas, a row of arrays per commit and app, co-located with the rollups');

-- Lays out the new table on Citus (and rollup_deltas, which 0050 listed without applying).
SELECT tapwire_apply_citus_layout();

-- A fold updates the same rollup keys again and again (the current hour's and day's rows, at
-- every fold under load). With room left on each page the new row version goes on the same page,
-- as a heap-only tuple: the primary key gets no new entry, and the page prunes its dead versions
-- without waiting for vacuum. Pages written from now on keep 30% free; older pages are
-- unaffected until rewritten.
ALTER TABLE rollup_counts SET (fillfactor = 70);
ALTER TABLE rollup_actions SET (fillfactor = 70);
ALTER TABLE rollup_histograms SET (fillfactor = 70);
ALTER TABLE mismatch_usage_hourly SET (fillfactor = 70);
ALTER TABLE mismatch_usage_daily SET (fillfactor = 70);
