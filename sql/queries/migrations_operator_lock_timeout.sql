-- Once a migration's transaction has its turn on the migrations' lock (migrations_lock.sql,
-- waited for with the server's timeouts off, as long as another process's migration runs), its
-- statements get the operator's lock_timeout back: the role's or database's (pg_settings'
-- reset_val), local to the transaction. DDL that waits for a table's lock queues the collectors'
-- commits behind it; past lock_timeout it fails (55P03) and the migration runs again
-- (docs/deployment.md, "The server's timeouts").
SELECT set_config('lock_timeout', reset_val, true) FROM pg_settings WHERE name = 'lock_timeout'
