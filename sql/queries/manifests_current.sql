-- The manifest in force for each version of one app: its id and content hash (SHA-256 of its
-- canonical JSON), not its body, which the caller reads (manifest_bodies.sql) only for the
-- hashes it has not decoded before (TapwireStore/ManifestCache.swift).
SELECT app_version, manifest_id, encode(content_hash, 'hex') AS content_hash
FROM current_manifests
WHERE app_id = $1::bigint
ORDER BY app_version
