-- The canonical JSON of manifests $2 of app $1 (ids from manifests_current.sql).
SELECT manifest_id, body::text AS body
FROM manifests
WHERE app_id = $1::bigint AND manifest_id = ANY ($2::bigint[])
