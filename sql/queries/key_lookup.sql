-- The key's app and hash; the secret is compared by the caller in constant time.
SELECT k.app_id, a.name, k.kind, encode(k.secret_hash, 'hex') AS secret_hash,
       (k.expires_at IS NULL OR k.expires_at > now()) AS active
FROM api_keys k JOIN apps a ON a.app_id = k.app_id
WHERE k.key_id = $1
