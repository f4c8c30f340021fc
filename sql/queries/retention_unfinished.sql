-- Partitions planned for dropping and not dropped yet, oldest first.
SELECT partition_name FROM retention_dropped_partitions WHERE dropped_at IS NULL ORDER BY range_start, partition_name
