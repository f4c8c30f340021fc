-- The soak checker's self-test only: loses $2 stored events of app $1, as a lost commit would.
DELETE FROM events WHERE ctid IN (SELECT ctid FROM events WHERE app_id = $1::bigint LIMIT $2::int)
