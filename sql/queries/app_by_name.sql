SELECT app_id, name, created_at FROM apps WHERE name = $1
