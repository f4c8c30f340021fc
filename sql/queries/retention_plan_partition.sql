-- Records that retention is about to drop partition $1 (before anything is detached), so an
-- interrupted run is finished by the next one.
INSERT INTO retention_dropped_partitions (partition_name, range_start, range_end, estimated_rows)
VALUES ($1, $2::timestamptz, $3::timestamptz, $4::bigint)
ON CONFLICT (partition_name) DO UPDATE SET
    range_start = EXCLUDED.range_start, range_end = EXCLUDED.range_end,
    estimated_rows = EXCLUDED.estimated_rows, planned_at = now(), dropped_at = NULL
