-- Apps with any usage since $1: the ones the webhook scanner checks. One index probe per app
-- (tapwire_app_has_usage_since, migration 0121, which says why it is a function).
SELECT a.app_id, a.name
FROM apps a
WHERE tapwire_app_has_usage_since(a.app_id, date_trunc('hour', $1::timestamptz, 'UTC'))
ORDER BY a.app_id
