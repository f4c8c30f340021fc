-- 0260: the pending rollup deltas' arrays compressed with LZ4 rather than pglz.
-- A commit appends one row of rollup_delta_batches per app (migration 0060), whose arrays hold an
-- element per finest row: hundreds of kilobytes at a real app's cardinality, so PostgreSQL
-- compresses them when it stores the row (TOAST) and decompresses them when the fold takes it,
-- with the server's default method, pglz, in the commit's and the fold's statements. LZ4 does
-- the same work at a fraction of the CPU (docs/ingestion.md, "The finest rows"). Rows stored
-- before keep their pglz values and are read as before; the table is a queue, emptied by every
-- fold. A server built without LZ4 keeps pglz: the setting's check says so before any change.
DO $do$
BEGIN
    BEGIN
        PERFORM set_config('default_toast_compression', 'lz4', true);
    EXCEPTION WHEN invalid_parameter_value OR feature_not_supported THEN
        RAISE NOTICE 'this PostgreSQL has no LZ4: rollup_delta_batches keeps pglz';
        RETURN;
    END;
    ALTER TABLE rollup_delta_batches
        ALTER COLUMN kind SET COMPRESSION lz4, ALTER COLUMN grain SET COMPRESSION lz4,
        ALTER COLUMN bucket SET COMPRESSION lz4, ALTER COLUMN category SET COMPRESSION lz4,
        ALTER COLUMN app_version SET COMPRESSION lz4, ALTER COLUMN platform SET COMPRESSION lz4,
        ALTER COLUMN campaign SET COMPRESSION lz4, ALTER COLUMN variant SET COMPRESSION lz4,
        ALTER COLUMN has_media SET COMPRESSION lz4, ALTER COLUMN action SET COMPRESSION lz4,
        ALTER COLUMN metric SET COMPRESSION lz4, ALTER COLUMN bin SET COMPRESSION lz4,
        ALTER COLUMN type SET COMPRESSION lz4, ALTER COLUMN category_registered SET COMPRESSION lz4,
        ALTER COLUMN n1 SET COMPRESSION lz4, ALTER COLUMN n2 SET COMPRESSION lz4,
        ALTER COLUMN n3 SET COMPRESSION lz4, ALTER COLUMN n4 SET COMPRESSION lz4,
        ALTER COLUMN n5 SET COMPRESSION lz4, ALTER COLUMN n6 SET COMPRESSION lz4,
        ALTER COLUMN n7 SET COMPRESSION lz4, ALTER COLUMN first_seen SET COMPRESSION lz4,
        ALTER COLUMN last_seen SET COMPRESSION lz4, ALTER COLUMN os SET COMPRESSION lz4;
END
$do$;
