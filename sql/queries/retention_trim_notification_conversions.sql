-- After retention_trim_conversion_credits.sql: the conversion rows of notifications touched
-- before the retention horizon (as there) whose every credit is gone. A notification touched
-- just before it may still be credited with a conversion after it: its row stays while that
-- credit does, so a later recomputation takes out exactly what it put in.
DELETE FROM notification_conversions n
WHERE n.touch_time < greatest(tapwire_retention_horizon(), $1::timestamptz)
  AND NOT EXISTS (SELECT 1 FROM conversion_credits c
                  WHERE c.app_id = n.app_id AND c.device_id = n.device_id AND c.notification_key = n.notification_key
                    AND c.name = n.name AND c.currency = n.currency)
