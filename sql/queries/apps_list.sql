SELECT a.app_id, a.name, (extract(epoch FROM a.created_at) * 1000000)::bigint AS created_at_us,
       count(*) FILTER (WHERE k.kind = 'write' AND (k.expires_at IS NULL OR k.expires_at > now())) AS write_keys,
       count(*) FILTER (WHERE k.kind = 'read' AND (k.expires_at IS NULL OR k.expires_at > now())) AS read_keys
FROM apps a LEFT JOIN api_keys k ON k.app_id = a.app_id
GROUP BY a.app_id, a.name, a.created_at
ORDER BY a.name
