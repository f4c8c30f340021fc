-- The instant as microseconds since 1970 from an interval, not extract(epoch FROM created_at):
-- Citus computes RETURNING on the worker and allows only IMMUTABLE functions there, and
-- extract from a timestamptz is STABLE (some of its fields depend on the TimeZone; the epoch does
-- not). The difference of two timestamptz is exact to the microsecond, in days of 24 hours.
INSERT INTO apps (name) VALUES ($1)
RETURNING app_id, (extract(epoch FROM created_at - timestamptz '1970-01-01 00:00:00+00') * 1000000)::bigint AS created_at_us
