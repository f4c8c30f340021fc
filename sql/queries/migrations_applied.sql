SELECT version, name, checksum FROM schema_migrations ORDER BY version
