-- On Citus, migration 0030's last statement runs as these statements instead (the Migrator
-- swaps them in; the migration's text, and so its checksum, stay as they were applied):
-- replaces: SELECT tapwire_apply_citus_layout()
--
-- 0030's layout function makes the reference tables in name order, so api_keys, whose foreign
-- key to apps cascades on delete, came before apps; Citus refuses a reference table with such a
-- key to a table of the coordinator only ("foreign keys from reference tables to local tables
-- can only be defined with NO ACTION or RESTRICT behaviors"), and every install on Citus
-- stopped here. apps first, then api_keys: the layout function then skips both and distributes
-- the rest. Migration 0120 replaces the function with one that orders the reference tables by
-- their foreign keys.
SELECT create_reference_table('apps');
SELECT create_reference_table('api_keys');
SELECT tapwire_apply_citus_layout();
