-- Step 1 of a group commit: the group's ids, repeats within the group dropped, in key order.
COPY staged_ids (seq, app_id, event_id, received_at) FROM STDIN (FORMAT binary)
