-- 0030: the Citus (distributed PostgreSQL) layout, recorded for every table, and applied only
-- where the citus extension is installed.
--
-- On plain PostgreSQL this migration creates a table and a function and changes nothing else.
-- On a Citus coordinator (`CREATE EXTENSION citus` before the first `tapwire migrate`), the
-- final SELECT distributes the per-app tables by app_id (co-located, so a report's joins stay
-- on one shard) and makes the small shared tables reference tables (copied to every node).
-- It works because PL/pgSQL plans a statement only when it first runs it: the Citus calls
-- below are never planned on a server without Citus.
--
-- Every table of the schema has a row here; a migration that adds a table adds its row and
-- calls tapwire_apply_citus_layout() again (it skips what is already laid out). The test
-- TapwireStoreTests/CitusLayoutTests checks, over all migrations, that every table is listed,
-- that each primary and unique key of a distributed table includes app_id, and that no
-- foreign key joins two distributed tables (or points from a reference table to one).
CREATE TABLE tapwire_table_layout (
    table_name text PRIMARY KEY,
    layout     text NOT NULL CHECK (layout IN ('distributed', 'reference', 'local')),
    -- Why the table is laid out so.
    reason     text NOT NULL
);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('apps', 'reference', 'one row per app, joined by reports and looked up by name'),
    ('api_keys', 'reference', 'resolved by key_id on every request, before the app is known'),
    ('events', 'distributed', 'the raw events; daily partitions are distributed as they are created'),
    ('event_ids', 'distributed', 'the dedup index: (app_id, event_id) is unique on its shard'),
    ('manifests', 'distributed', 'per app version'),
    ('manifest_categories', 'distributed', 'per manifest, co-located with manifests'),
    ('manifest_actions', 'distributed', 'per manifest, co-located with manifests'),
    ('schema_migrations', 'local', 'coordinator only: migrations run there'),
    ('tapwire_table_layout', 'local', 'coordinator only: read by migrations');

-- The rollups (0010-0019) and mismatch tables (0020-0029): every key starts with app_id, so a
-- report or a mismatch window reads one shard. Listed only where those migrations made them.
INSERT INTO tapwire_table_layout (table_name, layout, reason)
SELECT t.table_name, 'distributed', t.reason
FROM (VALUES
    ('rollup_counts', 'engagement rollup, co-located with events'),
    ('rollup_actions', 'engagement rollup, co-located with events'),
    ('rollup_histograms', 'engagement rollup, co-located with events'),
    ('mismatch_usage_hourly', 'mismatch usage rollup, co-located with events'),
    ('mismatch_usage_daily', 'mismatch usage rollup, co-located with events'),
    ('mismatch_alerts', 'webhook outbox, one row per app finding')
) AS t (table_name, reason)
WHERE to_regclass(t.table_name) IS NOT NULL;

-- Whether this server is a Citus coordinator.
CREATE FUNCTION tapwire_citus_installed() RETURNS boolean
LANGUAGE sql STABLE
RETURN EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus');

-- Lays out every listed table that exists and is not laid out yet: reference tables first
-- (distributed tables may point at them), then the distributed ones, by app_id. Tables with
-- the same distribution column type are co-located by Citus's default. Returns how many it
-- laid out; 0 without Citus.
CREATE FUNCTION tapwire_apply_citus_layout() RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
    t record;
    laid_out integer := 0;
BEGIN
    IF NOT tapwire_citus_installed() THEN
        RETURN 0;
    END IF;
    FOR t IN
        SELECT l.table_name, l.layout
        FROM tapwire_table_layout l
        WHERE l.layout <> 'local'
          AND to_regclass(l.table_name) IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = to_regclass(l.table_name))
        ORDER BY l.layout = 'distributed', l.table_name
    LOOP
        IF t.layout = 'reference' THEN
            PERFORM create_reference_table(t.table_name::regclass);
        ELSE
            PERFORM create_distributed_table(t.table_name::regclass, 'app_id');
        END IF;
        laid_out := laid_out + 1;
    END LOOP;
    RETURN laid_out;
END
$fn$;

SELECT tapwire_apply_citus_layout();
