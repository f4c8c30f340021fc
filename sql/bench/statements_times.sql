-- Execution time of every statement run in this database since the last reset. Top level only:
-- under pg_stat_statements.track = all a function's own statements are recorded too, and their time
-- is already in the call's.
SELECT query, calls, total_exec_time
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND toplevel
