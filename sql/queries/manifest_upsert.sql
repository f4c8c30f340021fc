-- Stores a manifest once per distinct content; a repeat post only moves last_posted_at.
-- `created` tells the caller whether to store the categories and actions.
-- The repeat takes the proposed row's last_posted_at (its default, now()), not now() itself:
-- Citus refuses a function that is not IMMUTABLE in ON CONFLICT DO UPDATE SET, and evaluates a
-- default on the coordinator (docs/deployment.md, "Where PostgreSQL and Citus differ").
INSERT INTO manifests (app_id, app_version, content_hash, body)
VALUES ($1::bigint, $2, decode($3, 'hex'), $4::jsonb)
ON CONFLICT (app_id, app_version, content_hash)
DO UPDATE SET last_posted_at = EXCLUDED.last_posted_at, post_count = manifests.post_count + 1
RETURNING manifest_id, (xmax = 0) AS created
