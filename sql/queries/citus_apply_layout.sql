-- After the migrations, on Citus: lays out every table not laid out yet (migration 0120's
-- tapwire_apply_citus_layout()), so a database migrated on plain PostgreSQL and moved to Citus
-- later is distributed by the next `tapwire migrate`. Nothing to do: a read of the catalog.
SELECT tapwire_apply_citus_layout()
