-- The baseline's rows, in the column order of sql/queries/copy_events.sql.
COPY bench_copy_baseline (app_id, event_time, event_id, type, device_time, received_at, time_clamped,
    notification_id, category, action_identifier, user_text_length, has_media, media_types,
    media_requested, category_registered, campaign, variant, delivered_at, app_version, build,
    platform, os_version, sdk, device_id, conversion_name, conversion_value, conversion_currency)
FROM STDIN (FORMAT binary)
