-- The staging table of a group commit (EventWriter): the (app_id, event_id) it is about to claim,
-- each with its seq (its position across the group's batches, which maps it back to its
-- request). Only what the claim needs: the rows themselves go straight into events once claimed.
-- A temporary table lives in one server session, so it is created (if missing) inside each
-- transaction that uses it: behind a transaction pooler, consecutive transactions may run on
-- different sessions. ON COMMIT DELETE ROWS empties it after every transaction.
CREATE TEMP TABLE IF NOT EXISTS staged_ids (
    seq         integer     NOT NULL,
    app_id      bigint      NOT NULL,
    event_id    uuid        NOT NULL,
    received_at timestamptz NOT NULL
) ON COMMIT DELETE ROWS
