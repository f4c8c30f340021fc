-- How far a hot standby's data is behind its primary, in seconds: NULL on a primary, 0 when the
-- standby has replayed everything it received, otherwise the time since the commit it replayed
-- last (PostgreSQL docs, "Monitoring" / pg_last_xact_replay_timestamp). A standby that receives
-- nothing while its primary is idle is not behind, which is why receive and replay are compared
-- first.
SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN NULL
    WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
    ELSE greatest(0, extract(epoch FROM now() - pg_last_xact_replay_timestamp()))::float8
END AS lag_seconds
