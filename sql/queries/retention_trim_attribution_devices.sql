-- After retention_trim_conversion_credits.sql: the devices whose every conversion was in the
-- dropped partitions (their last conversion before the retention horizon, as there; $1 as
-- there). The install id goes with the device's events; a conversion stored later adds the
-- device again. Nothing else is lost: the fold looks a device up here only to find conversions
-- to credit again, and it has none left. docs/outcomes.md, "Retention".
DELETE FROM attribution_devices WHERE last_conversion < greatest(tapwire_retention_horizon(), $1::timestamptz)
