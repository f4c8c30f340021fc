-- A stored release-regression look of one app, hour ($2) and configuration ($3): when it was
-- taken (µs since 1970) and its body. With $4 true, only while the app's manifests in force are
-- those the look saw (a reader's current look); false for the collectors, which take each
-- hour's look once whatever was uploaded since.
SELECT (extract(epoch FROM taken_at) * 1000000)::bigint, body
FROM regression_looks
WHERE app_id = $1::bigint AND looks_end = $2::timestamptz AND configuration = $3
  AND (NOT $4::boolean OR manifests_state = tapwire_manifests_state($1::bigint))
