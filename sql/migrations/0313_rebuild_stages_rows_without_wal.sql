-- 0313: a rebuilt day's rows are staged in a session's temporary table, not in rollup_deltas
-- (issue 33; docs/reports.md, "Rebuilding").
--
-- Until now the rebuild COPYed each day's rows into rollup_deltas, a logged table, and
-- tapwire_replace_app_rollups (0311) read them back with DELETE … RETURNING: the million rows of
-- 1M events were written to WAL twice (their insert, then their delete), which was all of the
-- rebuild's WAL over rollups that were right, and 4-5 s per 1M events. Nothing needs them to
-- survive the day's transaction: the day is replaced in the transaction that staged it.
--
-- Now the rebuild COPYs them into its session's temporary table tapwire_rebuild_rows
-- (sql/queries/rollups_rebuild_stage.sql: the columns of rollup_deltas, ON COMMIT DELETE ROWS),
-- which is never logged, and the replacement reads them from there: tapwire_replace_rollups(app,
-- from, to, staged) takes the relation. The statement is 0311's, its first CTE reading the
-- staged relation instead of deleting from rollup_deltas (tapwire_replace_staged_statement); the
-- rest is 0311's text, unchanged, so what is written is what 0311 wrote, row for row. On Citus
-- the temporary table is the coordinator's, and Citus plans the CTE that reads it on its own
-- (its rows are sent to the app's shards as an intermediate result); CitusCommandTests and
-- CitusUserFlowTests rebuild through it. The three-argument tapwire_replace_rollups (0310, 0311)
-- stays for a collector that still stages in rollup_deltas.

-- 0311's statement of one app's day, its rows read from STAGED (the same columns as
-- rollup_deltas) with a plain SELECT.
CREATE FUNCTION tapwire_replace_staged_statement(staged regclass) RETURNS text
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
    whole text := tapwire_replace_statement();
    head text := 'WITH pending AS (
        DELETE FROM rollup_deltas WHERE app_id = $1 AND (kind IN (4, 5) OR kind >= 11) RETURNING *
    ),';
BEGIN
    IF left(whole, length(head)) <> head THEN
        RAISE EXCEPTION 'tapwire_replace_statement() no longer starts with the CTE this function replaces';
    END IF;
    RETURN format('WITH pending AS MATERIALIZED (
        SELECT * FROM %s WHERE app_id = $1 AND (kind IN (4, 5) OR kind >= 11)
    ),', staged) || substr(whole, length(head) + 1);
END
$fn$;

-- Planned once per session, not once per day. 0311's EXECUTE … USING planned the statement of
-- some 44,000 characters again every day (and the text, with a relation to name, would be built
-- again every day too). Now the session PREPAREs it once, named after this migration and the
-- staged relation (a later migration that changes the statement names its own), and every day
-- EXECUTEs it with the app and the day, under a generic plan: a custom plan would be planned
-- again for every day's values, which is the cost this removes. A prepared statement ends with
-- its session, as the temporary table it reads does. Not on Citus, which plans no generic plan
-- of it: there the statement is EXECUTEd with its values every day, as 0311 does.
CREATE FUNCTION tapwire_replace_app_rollups(app bigint, day_from timestamptz, day_to timestamptz, staged regclass) RETURNS bigint
LANGUAGE plpgsql SET enable_nestloop = on SET jit = off SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    moved bigint;
    prepared text := 'tapwire_replace_0313_' || staged::oid;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        -- Citus cannot plan this statement generically ("could not create distributed plan",
        -- CitusUserFlowTests): there it is planned every day with its values, as 0311 does (a
        -- one-shot plan, whatever plan_cache_mode says).
        EXECUTE tapwire_replace_staged_statement(staged) INTO moved USING app, day_from, day_to;
        RETURN moved;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_prepared_statements p WHERE p.name = prepared) THEN
        EXECUTE format('PREPARE %I (bigint, timestamptz, timestamptz) AS %s', prepared, tapwire_replace_staged_statement(staged));
    END IF;
    -- EXECUTE of a prepared statement takes no bind parameters: the values are written in. The
    -- times go as microseconds since the epoch, not as text: a timestamptz's text follows the
    -- session's DateStyle and TimeZone, and an abbreviation such as IST (India's, under
    -- TimeZone Asia/Kolkata and DateStyle SQL) reads back as another zone's (Israel's), which
    -- moved the day and made the replacement insert keys it had (ServerSettingsTests).
    EXECUTE format('EXECUTE %I (%L::bigint, timestamptz ''epoch'' + %L::bigint * interval ''1 microsecond'','
                   ' timestamptz ''epoch'' + %L::bigint * interval ''1 microsecond'')', prepared, app,
                   (extract(epoch FROM day_from) * 1000000)::bigint, (extract(epoch FROM day_to) * 1000000)::bigint) INTO moved;
    RETURN moved;
END
$fn$;

-- 0310's tapwire_replace_rollups, the rows read from STAGED.
CREATE FUNCTION tapwire_replace_rollups(app bigint, day_from timestamptz, day_to timestamptz, staged regclass) RETURNS bigint
LANGUAGE plpgsql AS $fn$
DECLARE
    moved bigint := 0;
    one bigint;
BEGIN
    -- The rebuild generation (migration 0115), as rollups_rebuild_delete.sql bumps it.
    INSERT INTO rebuild_generations (app_id, generation) VALUES (coalesce(app, 0), 1)
    ON CONFLICT (app_id) DO UPDATE SET generation = rebuild_generations.generation + 1;
    FOR one IN SELECT a.app_id FROM apps a WHERE app IS NULL OR a.app_id = app ORDER BY 1 LOOP
        moved := moved + tapwire_replace_app_rollups(one, day_from, day_to, staged);
    END LOOP;
    RETURN moved;
END
$fn$;
