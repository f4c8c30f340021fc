-- `tapwire-bench ingest --citus-workers`: makes the scratch database a Citus database on this
-- node (run on the coordinator and on each worker, in the scratch database).
CREATE EXTENSION IF NOT EXISTS citus
