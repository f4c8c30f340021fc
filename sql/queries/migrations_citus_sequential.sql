-- On Citus, at the start of each migration's transaction: every statement on distributed tables
-- goes over one connection per worker. A migration mixes DDL on distributed tables (which Citus
-- runs over many connections at once) with CREATE FUNCTION and CREATE TABLE, which must then
-- see those changes over one connection ("cannot run function command because there was a
-- parallel operation on a distributed table in the transaction").
SELECT set_config('citus.multi_shard_modify_mode', 'sequential', true)
