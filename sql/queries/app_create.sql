INSERT INTO apps (name) VALUES ($1) RETURNING app_id, created_at
