-- A stored release-regression look of one app, hour ($2) and configuration ($3): when it was
-- taken (µs since 1970) and its body. With $4, only if the app's manifests in force were those
-- ($4, regression_look_manifests.sql, read first by the caller) when the look was stored (a
-- reader's current look); NULL for the collectors, which take each hour's look once whatever
-- was uploaded since. The state is a parameter, not tapwire_manifests_state() called here: on
-- Citus that call would run on the worker holding the look, and a function reading distributed
-- tables cannot run there (docs/deployment.md, "Where PostgreSQL and Citus differ").
SELECT (extract(epoch FROM taken_at) * 1000000)::bigint, body
FROM regression_looks
WHERE app_id = $1::bigint AND looks_end = $2::timestamptz AND configuration = $3
  AND ($4::text IS NULL OR manifests_state = $4::text)
