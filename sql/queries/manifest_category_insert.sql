INSERT INTO manifest_categories (app_id, manifest_id, category, title, options, custom_dismiss)
VALUES ($1::bigint, $2::bigint, $3, $4, $5::text[], $6::boolean)
