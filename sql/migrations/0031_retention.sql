-- 0031: what `tapwire retention` needs: the bounds of each daily partition of events, a BRIN
-- index to find old dedup ids without scanning them all, and the record of what was dropped.
--
-- Retention drops whole partitions of events and the dedup ids of events too old to be
-- accepted again; it never touches the rollups, which are what reports read.

-- The partitions of events with their ranges, read from the catalog (not from their names).
-- A partition whose bound is not a plain range (DEFAULT, MINVALUE) has NULL bounds.
CREATE FUNCTION tapwire_event_partitions()
RETURNS TABLE (partition_name text, range_start timestamptz, range_end timestamptz, detach_pending boolean)
LANGUAGE sql STABLE
-- pg_get_expr prints the bound constants in the session's DateStyle; ISO reads back exactly.
SET datestyle = 'ISO, YMD'
AS $fn$
    SELECT c.relname::text,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \(''([^'']+)''\)'))[1]::timestamptz,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']+)''\)'))[1]::timestamptz,
           i.inhdetachpending
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass
    ORDER BY 2 NULLS LAST, 1
$fn$;

-- event_ids is appended in receive order, so a BRIN index on received_at is a few pages and
-- costs the group commit next to nothing, yet lets retention find the old ids directly.
CREATE INDEX event_ids_received_brin ON event_ids USING brin (received_at);

-- One row per partition retention drops, written before it is detached: a run that is
-- interrupted (or killed by cron's timeout) is finished by the next one.
CREATE TABLE retention_dropped_partitions (
    partition_name text        PRIMARY KEY,
    range_start    timestamptz NOT NULL,
    range_end      timestamptz NOT NULL,
    -- The planner's estimate when it was planned; NULL if the partition was never analyzed.
    estimated_rows bigint,
    planned_at     timestamptz NOT NULL DEFAULT now(),
    dropped_at     timestamptz
);

-- Raw events are complete from this instant on (NULL: nothing was ever dropped). Rebuilding
-- rollups from events must not start before it: the rollups hold what the events no longer do.
CREATE FUNCTION tapwire_retention_horizon() RETURNS timestamptz
LANGUAGE sql STABLE
RETURN (SELECT max(range_end) FROM retention_dropped_partitions);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('retention_dropped_partitions', 'local', 'coordinator only: written by tapwire retention');
