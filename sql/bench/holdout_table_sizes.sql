-- `tapwire-bench holdouts`: rows and bytes (with indexes) of the holdout tables.
SELECT c.relname, c.reltuples::bigint, pg_total_relation_size(c.oid)
FROM pg_class c
WHERE c.relname IN ('rollup_holdouts', 'holdout_assignments', 'holdout_pending') AND c.relkind = 'r'
ORDER BY c.relname
