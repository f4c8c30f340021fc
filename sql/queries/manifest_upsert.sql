-- Stores a manifest once per distinct content; a repeat post only moves last_posted_at.
-- `created` tells the caller whether to store the categories and actions.
INSERT INTO manifests (app_id, app_version, content_hash, body)
VALUES ($1::bigint, $2, decode($3, 'hex'), $4::jsonb)
ON CONFLICT (app_id, app_version, content_hash)
DO UPDATE SET last_posted_at = now(), post_count = manifests.post_count + 1
RETURNING manifest_id, (xmax = 0) AS created
