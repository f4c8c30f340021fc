-- One retention run at a time per database: taken inside the transaction a `TransactionLock`
-- keeps open for the whole run, released when it ends or its connection drops.
SELECT pg_try_advisory_xact_lock(7358030)
