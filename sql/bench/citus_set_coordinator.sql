-- On the coordinator: its own address, so workers can reach it.
SELECT citus_set_coordinator_host($1, $2::integer)
