-- 0115: a rollups rebuild stops readers serving the stored release-regression looks it may have
-- changed (docs/regressions.md, "Stored looks").
--
-- A reader serves a stored look only while tapwire_manifests_state(app) equals the state the
-- look was stored with (regression_look_read.sql). That state now also covers the rebuilds of
-- the app's rollups: each day a rebuild rewrites bumps the app's generation here (or the
-- generation of app 0, a rebuild of every app) in the transaction that rewrites the day
-- (rollups_rebuild_delete.sql). A look whose state was read before any of those commits is no
-- longer served; one read after the last of them was computed from rebuilt rollups, since the
-- collectors read the state before they compute (RegressionLookStore.take).

CREATE TABLE rebuild_generations (
    -- The app whose rollups were rebuilt, or 0 for a rebuild of every app.
    app_id     bigint PRIMARY KEY,
    -- How many days of its rollups have been rebuilt, ever: only changes matter.
    generation bigint NOT NULL
);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('rebuild_generations', 'reference', 'one small row per rebuilt app, read with every app''s manifests state');
SELECT tapwire_apply_citus_layout();

-- The same digest of the manifests in force as 0105 made, with the app's and every app's
-- rebuild generations after it once there are any (so looks stored before this migration, of
-- apps never rebuilt, are still served).
CREATE OR REPLACE FUNCTION tapwire_manifests_state(app bigint) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
RETURN (SELECT coalesce(encode(sha256(convert_to(string_agg(length(c.app_version) || ':' || c.app_version || '='
                                                            || encode(c.content_hash, 'hex'), ',' ORDER BY c.app_version), 'UTF8')), 'hex'), '')
        FROM current_manifests c WHERE c.app_id = app)
    || coalesce((SELECT ' rebuilt ' || coalesce(max(r.generation) FILTER (WHERE r.app_id = app), 0)
                        || '/' || coalesce(max(r.generation) FILTER (WHERE r.app_id = 0), 0)
                 FROM rebuild_generations r WHERE r.app_id IN (app, 0) HAVING count(*) > 0), '');
