-- `tapwire-bench report`: the rows and bytes (pg_total_relation_size: heap, indexes, TOAST, and
-- every partition's) of each rollup table in the shape's own database (every table named
-- rollup_* except the pending deltas rollup_delta*, and mismatch_usage_*), and of events, whose
-- bytes the rollups' are compared with. Rows are counted exactly, each table by a statement the
-- database builds from the table's name.
WITH measured AS (
    SELECT c.oid, c.relkind, n.nspname, c.relname
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND ((c.relname LIKE 'rollup\_%' AND c.relname NOT LIKE 'rollup\_delta%')
           OR c.relname LIKE 'mismatch\_usage\_%' OR c.relname = 'events')
)
SELECT relname,
       (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I.%I', nspname, relname), false, true, '')))[1]::text::bigint,
       CASE WHEN relkind = 'p' THEN (SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree(oid))::bigint
            ELSE pg_total_relation_size(oid) END
FROM measured
ORDER BY relname = 'events', relname
