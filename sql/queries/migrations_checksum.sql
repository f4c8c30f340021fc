-- The checksum migration $1 was applied with, read under the migrations lock; no row: not applied.
SELECT checksum FROM schema_migrations WHERE version = $1::integer
