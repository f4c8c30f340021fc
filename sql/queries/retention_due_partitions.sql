-- The partitions of events whose whole range ends at or before $1, oldest first, with the
-- planner's row estimate (NULL before the partition's first ANALYZE).
SELECT p.partition_name, p.range_start, p.range_end, CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint END AS estimated_rows
FROM tapwire_event_partitions() p
JOIN pg_class c ON c.oid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident(p.partition_name))
WHERE p.range_end <= $1::timestamptz
ORDER BY p.range_start
