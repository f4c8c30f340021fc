-- 0162: tapwire_queue_attribution (0161) reads the range once: it counted the range's
-- conversions in one scan of events and queued them in a second; the rows it queues now say how
-- many they hold. The rollups rebuild calls it for every rebuilt day.
CREATE OR REPLACE FUNCTION tapwire_queue_attribution(p_app bigint, p_from timestamptz, p_to timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_queued bigint;
    v_row    record;
BEGIN
    -- PL/pgSQL, not SQL: Citus cannot plan a query on a distributed table that uses a SQL
    -- function's arguments (migration 0121).
    -- One read of the range: the rows queued say how many conversions they hold.
    v_queued := 0;
    FOR v_row IN
        INSERT INTO attribution_pending (app_id, device_ids, event_times, conversions)
        SELECT app_id, array_agg(device_id), array_agg(event_time), array_agg(true)
        FROM events
        WHERE (p_app IS NULL OR app_id = p_app) AND type = 'conversion'
          AND event_time >= p_from AND event_time < p_to
        GROUP BY app_id
        RETURNING cardinality(event_times) AS n
    LOOP
        v_queued := v_queued + v_row.n;
    END LOOP;
    RETURN v_queued;
END
$fn$;
