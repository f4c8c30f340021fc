-- Step 1 of a group commit when no duplicate is expected: the group's ids (repeats within the
-- group dropped, in key order) go straight into the dedup index with COPY, whose multi-row
-- insert costs a fraction of INSERT … ON CONFLICT. Any id stored before, by any collector, makes
-- it fail with unique_violation (23505); EventWriter then rolls back and claims the group
-- through sql/queries/claim_event_ids.sql, which skips such ids. On Citus the failure is
-- XX000, not 23505: its COPY passes on a worker's error without the SQLSTATE (EventWriter).
COPY event_ids (app_id, event_id, received_at) FROM STDIN (FORMAT binary)
