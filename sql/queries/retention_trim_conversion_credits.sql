-- After retention drops partitions of events: the credits of the conversions they held, those
-- before the retention horizon (the end of the last dropped partition; $1, NULL for a run, is a
-- later end to count as dropped), docs/outcomes.md. Never those of a partition still kept, whose
-- conversions a later recomputation would otherwise count again. The rollups keep their counts.
DELETE FROM conversion_credits WHERE event_time < greatest(tapwire_retention_horizon(), $1::timestamptz)
