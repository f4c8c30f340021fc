-- Shared buffers found in the cache (hit) and read into it (read) by every statement run in this
-- database since the last reset: a statement's reads, which the machine's load does not move. Top
-- level only, as the times are (statements_times.sql); a function's call counts its statements'.
SELECT query, shared_blks_hit::text, shared_blks_read::text
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND toplevel
