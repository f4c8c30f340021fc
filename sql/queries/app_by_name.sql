SELECT app_id, name, (extract(epoch FROM created_at) * 1000000)::bigint AS created_at_us FROM apps WHERE name = $1
