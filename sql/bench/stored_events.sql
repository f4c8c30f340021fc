-- `tapwire-bench ingest`: the measured events the collector stored (warm-up events carry version '0').
SELECT count(*) FROM events WHERE app_id = $1::bigint AND app_version <> '0'
