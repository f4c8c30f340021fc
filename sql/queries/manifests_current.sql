-- The manifest in force for each version of one app, as canonical JSON.
SELECT c.app_version, m.body::text, encode(m.content_hash, 'hex'), m.last_posted_at
FROM current_manifests c JOIN manifests m ON m.app_id = c.app_id AND m.manifest_id = c.manifest_id
WHERE c.app_id = $1::bigint
ORDER BY c.app_version
