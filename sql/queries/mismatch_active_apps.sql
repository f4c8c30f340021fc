-- Apps with any usage since $1: the ones the webhook scanner checks. One index probe per app.
SELECT a.app_id, a.name
FROM apps a
WHERE EXISTS (SELECT 1 FROM mismatch_usage_hourly u WHERE u.app_id = a.app_id AND u.bucket >= date_trunc('hour', $1::timestamptz, 'UTC'))
ORDER BY a.app_id
