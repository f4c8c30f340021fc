-- Migrations take turns on this lock (the key is fixed for every Tapwire process), held by each
-- migration's transaction: a session lock would not do behind a transaction pooler, where the
-- unlock can reach another server session (docs/deployment.md, "PgBouncer"). The migrations
-- were written for sessions in UTC with ISO dates (0001 quotes partition bounds as text), so
-- each runs with those settings, local to its transaction: the server's own may differ.
SELECT pg_advisory_xact_lock(7358000), set_config('TimeZone', 'UTC', true), set_config('DateStyle', 'ISO, YMD', true)
