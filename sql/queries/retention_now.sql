-- The database's clock: every collector's partitions and retention's cutoffs agree on it.
SELECT (extract(epoch FROM now()) * 1000000)::bigint
