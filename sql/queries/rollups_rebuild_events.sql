-- Step 2 of rebuilding one day: the raw events of the range rollups_rebuild_range.sql set, with
-- the columns TapwireCore.RollupDeltas reads, streamed back to `tapwire rollups rebuild`, which
-- recomputes the rollups with the code the group commits use (TapwireStore/RollupStore.swift).
COPY (
    SELECT app_id, event_time, type::text, category, action_identifier, user_text_length, has_media,
           media_requested, category_registered, campaign, variant, delivered_at, app_version, platform, os_version
    FROM events
    WHERE app_id = coalesce(nullif(current_setting('tapwire.rebuild_app'), '')::bigint, app_id)
      AND event_time >= current_setting('tapwire.rebuild_from')::timestamptz
      AND event_time < current_setting('tapwire.rebuild_to')::timestamptz
) TO STDOUT (FORMAT binary)
