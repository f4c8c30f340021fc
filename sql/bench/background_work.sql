-- Before each timed segment of `tapwire-bench ingest`: the cluster's work still running from the
-- segments before (autovacuum and autoanalyze workers; other sessions' active statements, such as
-- a collector's background fold), which would otherwise run in whichever segment comes next.
SELECT count(*)
FROM pg_stat_activity
WHERE pid <> pg_backend_pid()
  AND (backend_type IN ('autovacuum worker', 'parallel worker')
       OR (backend_type = 'client backend' AND state = 'active'))
