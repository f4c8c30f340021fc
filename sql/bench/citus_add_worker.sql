-- On the coordinator: one worker of the benchmark's cluster.
SELECT citus_add_node($1, $2::integer)
