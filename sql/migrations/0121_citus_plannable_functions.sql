-- 0121: SQL helper functions that Citus can run, with the same results on plain PostgreSQL.
--
-- Citus cannot plan a query on a distributed table inside a function written in SQL when the
-- query uses the function's arguments ("could not create distributed plan … parameters in SQL
-- functions"): tapwire_manifests_state(app), which every reader of a stored release-regression
-- look calls (sql/queries/regression_look_read.sql), failed on Citus. PL/pgSQL plans each query
-- with the argument's value, which Citus can route to the app's shards; the text is the one of
-- migration 0115.
CREATE OR REPLACE FUNCTION tapwire_manifests_state(app bigint) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $fn$
BEGIN
    RETURN (SELECT coalesce(encode(sha256(convert_to(string_agg(length(c.app_version) || ':' || c.app_version || '='
                                                                 || encode(c.content_hash, 'hex'), ',' ORDER BY c.app_version), 'UTF8')), 'hex'), '')
            FROM current_manifests c WHERE c.app_id = app)
        || coalesce((SELECT ' rebuilt ' || coalesce(max(r.generation) FILTER (WHERE r.app_id = app), 0)
                            || '/' || coalesce(max(r.generation) FILTER (WHERE r.app_id = 0), 0)
                     FROM rebuild_generations r WHERE r.app_id IN (app, 0) HAVING count(*) > 0), '');
END
$fn$;

-- Whether the app has mismatch usage from `since` on: one probe of the primary key, stopping at
-- the first row. The findings monitor asks it of every app (sql/queries/mismatch_active_apps.sql).
-- A function, not a correlated EXISTS in that query: Citus cannot plan a subquery over a
-- distributed table that refers to a reference table (apps) of the query around it, and the
-- join it can plan instead reads every row of the window, where this reads one per app.
CREATE FUNCTION tapwire_app_has_usage_since(app bigint, since timestamptz) RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $fn$
BEGIN
    RETURN EXISTS (SELECT 1 FROM mismatch_usage_hourly u WHERE u.app_id = app AND u.bucket >= since);
END
$fn$;
