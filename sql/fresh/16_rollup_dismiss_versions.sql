-- The app versions of the dismiss base (migration 0301): every version with events, once.
INSERT INTO rollup_dismiss_versions (app_id, app_version)
SELECT DISTINCT app_id, app_version
FROM staging_events
ORDER BY 1, 2
ON CONFLICT (app_id, app_version) DO NOTHING
