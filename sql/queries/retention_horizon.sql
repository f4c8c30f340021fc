-- Raw events are complete from this instant on (NULL: retention never dropped anything).
SELECT (extract(epoch FROM tapwire_retention_horizon()) * 1000000)::bigint
