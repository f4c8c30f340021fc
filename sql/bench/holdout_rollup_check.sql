-- `tapwire-bench holdouts`: what the fold kept for app $1: rollup_holdouts' rows, devices assigned
-- and converted per arm, against holdout_assignments' rows and the devices posted in events.
SELECT (SELECT count(*) FROM rollup_holdouts WHERE app_id = $1::bigint) AS rollup_rows,
       (SELECT coalesce(sum(assigned), 0) FROM rollup_holdouts WHERE app_id = $1::bigint AND NOT held_out) AS treated,
       (SELECT coalesce(sum(assigned), 0) FROM rollup_holdouts WHERE app_id = $1::bigint AND held_out) AS held_out,
       (SELECT coalesce(sum(converted), 0) FROM rollup_holdouts WHERE app_id = $1::bigint) AS converted,
       (SELECT count(*) FROM holdout_assignments WHERE app_id = $1::bigint) AS assignment_rows,
       (SELECT count(DISTINCT device_id) FROM events WHERE app_id = $1::bigint AND type = 'assignment') AS devices_posted,
       (SELECT count(*) FROM holdout_pending WHERE app_id = $1::bigint) AS pending_rows
