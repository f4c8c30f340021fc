-- Migrations take turns on this session lock (the key is fixed for every Tapwire process).
SELECT pg_advisory_lock(7358000)
