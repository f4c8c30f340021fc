-- make soak's "slow database" fault: every statement claiming event ids sleeps first, so each
-- group commit takes that much longer while it is installed. Removed by slow_remove.sql.
CREATE OR REPLACE FUNCTION tapwire_soak_slow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    PERFORM pg_sleep(0.25);
    RETURN NULL;
END
$fn$;
CREATE TRIGGER tapwire_soak_slow BEFORE INSERT ON event_ids FOR EACH STATEMENT EXECUTE FUNCTION tapwire_soak_slow();
