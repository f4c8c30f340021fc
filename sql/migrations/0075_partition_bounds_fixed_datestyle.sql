-- 0075: tapwire_ensure_event_partitions writes the partition bounds in a fixed DateStyle and
-- TimeZone.
--
-- Its CREATE TABLE … FOR VALUES FROM (%L) TO (%L) quotes the bounds, UTC midnights, as the
-- session's text of a timestamptz. Collectors used to start every session in UTC; they no longer
-- set any session setting (a transaction pooler such as PgBouncer refuses the startup `options`,
-- docs/deployment.md), so sessions run with the server's TimeZone and DateStyle. Under
-- DateStyle 'SQL, DMY' with TimeZone Asia/Kolkata the bound was written "30/10/2026 05:30:00
-- IST", which PostgreSQL reads back as Israel Standard Time: the partition would have started
-- at 03:30 UTC, not midnight. Settings attached to the function apply only while it runs.
ALTER FUNCTION tapwire_ensure_event_partitions(date, date) SET datestyle = 'ISO, YMD';
ALTER FUNCTION tapwire_ensure_event_partitions(date, date) SET timezone = 'UTC';
