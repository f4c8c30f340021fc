-- Ends the current WAL segment; the next write needs a new one, which a fresh cluster creates
-- and zero-fills (and a server in steady state recycles).
SELECT pg_switch_wal()
