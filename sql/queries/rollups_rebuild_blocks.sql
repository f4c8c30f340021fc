-- After a rebuilt day of app $1 (every app when NULL) is recomputed, in the same transaction: the
-- blocks of days whose days in the rebuilt range are all recomputed now ($2 grains 3 to 6, $3
-- their first midnights, $4 their ends, computed by RollupRows.Grain.block; the rebuild goes back
-- in time, so these are the blocks that start on the day, or every block that holds the range's
-- first day) are made again from the rows of their days (tapwire_rebuild_blocks, migration 0150):
-- each block once per rebuild. The blocks come as parameters, not from a function of the day, so
-- every statement Citus sends to a shard is plain SQL.
SELECT tapwire_rebuild_blocks($1::bigint, $2::smallint[], $3::timestamptz[], $4::timestamptz[])
