-- A dry run's count of what retention_trim_conversion_credits.sql,
-- retention_trim_notification_conversions.sql, retention_trim_attribution_devices.sql and
-- retention_trim_holdout_assignments.sql would delete once the partitions due, which end at $1
-- (NULL: none), are dropped.
WITH horizon AS (SELECT greatest(tapwire_retention_horizon(), $1::timestamptz) AS at)
SELECT (SELECT count(*) FROM conversion_credits, horizon WHERE event_time < horizon.at) AS credits,
       (SELECT count(*) FROM notification_conversions n, horizon
        WHERE n.touch_time < horizon.at
          AND NOT EXISTS (SELECT 1 FROM conversion_credits c
                          WHERE c.app_id = n.app_id AND c.device_id = n.device_id AND c.notification_key = n.notification_key
                            AND c.name = n.name AND c.currency = n.currency AND c.event_time >= horizon.at)) AS notifications,
       (SELECT count(*) FROM attribution_devices, horizon WHERE last_conversion < horizon.at) AS devices,
       (SELECT count(*) FROM holdout_assignments, horizon WHERE assigned_at < horizon.at - interval '90 days') AS assignments
