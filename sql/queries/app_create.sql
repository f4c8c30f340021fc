INSERT INTO apps (name) VALUES ($1) RETURNING app_id, (extract(epoch FROM created_at) * 1000000)::bigint AS created_at_us
