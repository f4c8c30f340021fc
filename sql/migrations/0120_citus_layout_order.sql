-- 0120: the Citus layout function lays out reference tables in the order of their foreign keys,
-- and knows a table Citus added to its metadata by itself from one laid out as listed.
--
-- Migration 0030's version made the reference tables in name order: api_keys, whose foreign key
-- to apps cascades on delete, before apps, which Citus refuses (sql/citus/0030_citus_layout.sql
-- makes apps and api_keys first on a fresh install). It also skipped any table Citus already
-- knew: but making apps a reference table makes Citus add api_keys, which points at it, to its
-- metadata as a table of the coordinator only (a "Citus local table"), which 0030's function
-- then took for laid out. Now a table counts as laid out only as its layout row says:
-- distributed by hash, or a reference table. And the rows a table held when it was laid out
-- are removed from the coordinator's own copy once they are on the shards.
--
-- The migrations call this function after each one that adds a table; `tapwire migrate` also
-- calls it at the end of every run on Citus, so a database migrated on plain PostgreSQL and moved
-- to Citus later (CREATE EXTENSION citus, the workers added, `tapwire migrate`) is laid out then
-- (docs/deployment.md, "Citus").
CREATE OR REPLACE FUNCTION tapwire_apply_citus_layout() RETURNS integer
LANGUAGE plpgsql AS $fn$
DECLARE
    t record;
    laid_out text[] := '{}';
BEGIN
    IF NOT tapwire_citus_installed() THEN
        RETURN 0;
    END IF;
    FOR t IN
        WITH RECURSIVE listed AS (
            SELECT l.table_name, l.layout, to_regclass(l.table_name) AS rel
            FROM tapwire_table_layout l
            WHERE l.layout <> 'local' AND to_regclass(l.table_name) IS NOT NULL
        ), chain (rel, depth) AS (
            -- How far down a chain of foreign keys each table is: a table comes after every table
            -- it points at (a key to itself does not count; 16 bounds a cycle).
            SELECT rel, 0 FROM listed
            UNION ALL
            SELECT c.conrelid, chain.depth + 1
            FROM chain
            JOIN pg_constraint c ON c.confrelid = chain.rel AND c.contype = 'f' AND c.conrelid <> c.confrelid
            WHERE chain.depth < 16
        )
        SELECT l.table_name, l.layout
        FROM listed l
        JOIN (SELECT rel, max(depth) AS depth FROM chain GROUP BY rel) d ON d.rel = l.rel
        WHERE NOT EXISTS (SELECT 1 FROM pg_dist_partition p
                          WHERE p.logicalrelid = l.rel
                            AND CASE l.layout WHEN 'reference' THEN p.partmethod = 'n' AND p.repmodel = 't'
                                              ELSE p.partmethod = 'h' END)
        ORDER BY l.layout = 'distributed', d.depth, l.table_name
    LOOP
        IF t.layout = 'reference' THEN
            PERFORM create_reference_table(t.table_name::regclass);
        ELSE
            PERFORM create_distributed_table(t.table_name::regclass, 'app_id');
        END IF;
        laid_out := laid_out || t.table_name;
    END LOOP;
    -- Laying out a table with rows copies them to the shards and leaves the coordinator's copy
    -- (a database that moved to Citus): drop that copy once every table is laid out (a
    -- reference table's truncate cascades along its foreign keys, so not before).
    FOR i IN 1 .. cardinality(laid_out) LOOP
        PERFORM truncate_local_data_after_distributing_table(laid_out[i]::regclass);
    END LOOP;
    RETURN cardinality(laid_out);
END
$fn$;

SELECT tapwire_apply_citus_layout();
