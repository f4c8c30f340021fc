-- After retention drops partitions of events: the holdout assignments whose conversion window
-- closed before the retention horizon ($1 as in retention_trim_conversion_credits.sql). Every
-- window is at most 90 days (migration 0201's checks), so an assignment made 90 days before the
-- horizon can have no conversion left to find. The install id goes with them; rollup_holdouts
-- keeps their counts, and the holdout report reads only it. docs/holdouts.md, "Retention".
DELETE FROM holdout_assignments
WHERE assigned_at < greatest(tapwire_retention_horizon(), $1::timestamptz) - interval '90 days'
