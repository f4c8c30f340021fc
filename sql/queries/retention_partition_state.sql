-- Where partition $1 stands: whether the table exists, whether it is still a partition of
-- events (and mid-detach), and the statements for each step, with the name quoted by the server.
-- On Citus the detach is a plain DETACH PARTITION (Citus refuses CONCURRENTLY): it waits for the
-- commits writing to events and holds theirs back while it runs, a catalog change on each node
-- (docs/deployment.md, "Where PostgreSQL and Citus differ").
SELECT to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1)) IS NOT NULL AS present,
       i.inhrelid IS NOT NULL AS attached,
       coalesce(i.inhdetachpending, false) AS detach_pending,
       CASE WHEN tapwire_citus_installed() THEN format('ALTER TABLE events DETACH PARTITION %I', $1)
            ELSE format('ALTER TABLE events DETACH PARTITION %I CONCURRENTLY', $1) END AS detach_sql,
       format('ALTER TABLE events DETACH PARTITION %I FINALIZE', $1) AS finalize_sql,
       format('DROP TABLE IF EXISTS %I', $1) AS drop_sql
FROM (SELECT 1) one
LEFT JOIN pg_inherits i
       ON i.inhrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1))
      AND i.inhparent = 'events'::regclass
