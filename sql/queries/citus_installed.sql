-- Whether this database is a Citus coordinator: the citus extension is created in it. What
-- differs on Citus, and why, is in docs/deployment.md ("Where PostgreSQL and Citus differ").
SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')
