-- Stores a release-regression look unless another collector stored the same app, hour and
-- configuration first (then the caller reads that one), and deletes the app's looks that ended
-- before $7: the table keeps a few days per app. Returns a row when this one was stored.
WITH pruned AS (
    DELETE FROM regression_looks WHERE app_id = $1::bigint AND looks_end < $7::timestamptz
)
INSERT INTO regression_looks (app_id, looks_end, configuration, manifests_state, taken_at, body)
VALUES ($1::bigint, $2::timestamptz, $3, $4, $5::timestamptz, $6)
ON CONFLICT (app_id, looks_end, configuration) DO NOTHING
RETURNING 1
