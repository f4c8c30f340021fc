-- The highest applied migration, 0 on an empty database.
SELECT CASE WHEN to_regclass('schema_migrations') IS NULL THEN 0
            ELSE (SELECT coalesce(max(version), 0) FROM schema_migrations) END
