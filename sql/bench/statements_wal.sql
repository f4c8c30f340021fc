-- WAL bytes (full-page images included) of every statement run in this database since the last
-- reset: a measure of a statement's write volume that the machine's load does not move. Top level
-- only, as the times are (statements_times.sql).
SELECT query, wal_bytes::text, wal_fpi
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND toplevel
