-- The soak checker's self-test only: stores one event of app $1 a second time.
INSERT INTO events SELECT * FROM events WHERE app_id = $1::bigint LIMIT 1
