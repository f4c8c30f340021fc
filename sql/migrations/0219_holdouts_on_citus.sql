-- 0219: what 0201 wrote that a Citus cluster cannot plan (migration 0121 says why for each).
--
-- tapwire_queue_holdouts in PL/pgSQL: as a SQL function whose query on `events` uses its
-- arguments it failed on a cluster ("could not create distributed plan"), and with it the rollups
-- rebuild (0162 did the same for attribution's). The same rows are queued, in one read of the
-- range; the rows queued say how many they hold.
CREATE OR REPLACE FUNCTION tapwire_queue_holdouts(p_app bigint, p_from timestamptz, p_to timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    v_queued bigint := 0;
    v_row    record;
BEGIN
    FOR v_row IN
        INSERT INTO holdout_pending (app_id, device_ids, event_times)
        SELECT app_id, array_agg(device_id), array_agg(event_time)
        FROM events
        WHERE (p_app IS NULL OR app_id = p_app) AND type IN ('assignment', 'conversion') AND device_id IS NOT NULL
          AND event_time >= p_from AND event_time < p_to
        GROUP BY app_id
        RETURNING cardinality(device_ids) AS n
    LOOP
        v_queued := v_queued + v_row.n;
    END LOOP;
    RETURN v_queued;
END
$fn$;

-- Whether the app has a holdout assignment on a UTC day from `since` on, for the sample-ratio
-- family's monitor scan (sql/queries/holdout_active_apps.sql). A function, not a correlated
-- EXISTS in that query: Citus cannot plan a subquery over a distributed table (rollup_holdouts)
-- that refers to the reference table (apps) around it, so every monitor scan failed on a cluster
-- and the webhook's outbox was never delivered.
CREATE FUNCTION tapwire_app_has_holdouts_since(p_app bigint, p_since timestamptz) RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $fn$
BEGIN
    RETURN EXISTS (SELECT 1 FROM rollup_holdouts r
                   WHERE r.app_id = p_app AND r.day >= tapwire_utc_day(p_since) AND r.assigned <> 0);
END
$fn$;
