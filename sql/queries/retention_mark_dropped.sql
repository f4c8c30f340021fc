UPDATE retention_dropped_partitions SET dropped_at = now() WHERE partition_name = $1
