-- The partitions of events whose whole range ends at or before $1, oldest first, with the
-- planner's row estimate (NULL before the partition's first ANALYZE). Instants in microseconds
-- since the Unix epoch, whatever the session's TimeZone and DateStyle.
SELECT p.partition_name,
       (extract(epoch FROM p.range_start) * 1000000)::bigint AS range_start_us,
       (extract(epoch FROM p.range_end) * 1000000)::bigint AS range_end_us,
       CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint END AS estimated_rows
FROM tapwire_event_partitions() p
JOIN pg_class c ON c.oid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident(p.partition_name))
WHERE p.range_end <= $1::timestamptz
ORDER BY p.range_start
