-- After retention drops partitions of events: the credits of the conversions they held, those
-- before the retention horizon (the end of the last dropped partition, or $1 when later: NULL
-- but in tests), docs/outcomes.md. Never before a partition still kept, whose conversions a later
-- recomputation would otherwise count again. The rollups keep their counts.
DELETE FROM conversion_credits WHERE event_time < greatest(tapwire_retention_horizon(), $1::timestamptz)
