-- Step 3, only when some staged rows were duplicates: afterwards staging_events holds exactly
-- the rows newly stored, which is what the statements in sql/fresh/ aggregate.
DELETE FROM staging_events WHERE seq = ANY($1::integer[])
