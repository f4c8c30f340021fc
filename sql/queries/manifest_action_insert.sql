INSERT INTO manifest_actions (app_id, manifest_id, category, action, position, title, options, text_input)
VALUES ($1::bigint, $2::bigint, $3, $4, $5::integer, $6, $7::text[], $8::boolean)
