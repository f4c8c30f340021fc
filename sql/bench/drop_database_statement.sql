-- The DROP DATABASE statement for the benchmark's scratch database $1, its name quoted by
-- PostgreSQL itself (see sql/queries/create_database_statement.sql).
SELECT format('DROP DATABASE IF EXISTS %I WITH (FORCE)', $1::text)
