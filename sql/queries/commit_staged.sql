-- Moves the staged rows of one group commit into events, skipping every (app_id, event_id)
-- already stored, by any collector at any time, and repeats within the group (the first
-- staged copy wins). Returns the staging seq of each row newly stored; the caller counts
-- the others as duplicates.
--
-- `fresh` holds exactly the newly stored rows, so anything derived from it (the rollups)
-- counts each event once. Rows are taken in key order so concurrent collectors lock the
-- dedup index in the same order.
WITH fresh_ids AS (
    INSERT INTO event_ids (app_id, event_id, received_at)
    SELECT DISTINCT ON (app_id, event_id) app_id, event_id, received_at
    FROM staging_events
    ORDER BY app_id, event_id, seq
    ON CONFLICT (app_id, event_id) DO NOTHING
    RETURNING app_id, event_id
), fresh AS MATERIALIZED (
    SELECT DISTINCT ON (s.app_id, s.event_id) s.*
    FROM staging_events s
    JOIN fresh_ids f ON f.app_id = s.app_id AND f.event_id = s.event_id
    ORDER BY s.app_id, s.event_id, s.seq
), stored AS (
    INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, time_clamped,
        notification_id, category, action_identifier, user_text_length, has_media, media_types,
        media_requested, category_registered, campaign, variant, delivered_at, app_version, build,
        platform, os_version, sdk, device_id)
    SELECT app_id, event_time, event_id, type, device_time, received_at, time_clamped,
        notification_id, category, action_identifier, user_text_length, has_media, media_types,
        media_requested, category_registered, campaign, variant, delivered_at, app_version, build,
        platform, os_version, sdk, device_id
    FROM fresh
)
SELECT seq FROM fresh
