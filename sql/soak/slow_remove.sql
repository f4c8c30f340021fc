DROP TRIGGER IF EXISTS tapwire_soak_slow ON event_ids;
DROP FUNCTION IF EXISTS tapwire_soak_slow();
