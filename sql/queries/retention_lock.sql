-- One retention run at a time per database (session lock, released on unlock or disconnect).
SELECT pg_try_advisory_lock(7358030)
