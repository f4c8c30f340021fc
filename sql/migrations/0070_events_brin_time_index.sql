-- 0070: events are found by time with a BRIN index instead of the (app_id, event_time) btree.
--
-- Each row inserted into events_by_app_time (migration 0001) cost a btree descent, a leaf
-- write and a WAL record: under `make bench`, about a fifth of the database's CPU per stored
-- event (13.5 and 12.8 s per 1M events for random and UUIDv7 ids in a run with it, 9.2–10.6 s
-- in six runs without it). What reads events by time:
-- * a report, only for the hours the rollups cannot answer: hours cut by a local midnight of a
--   time zone with a half-hour offset (Asia/Kolkata: the UTC hour from 18:00), one per day of
--   the range (sql/queries/report_raw_*.sql);
-- * `tapwire rollups rebuild`, a whole day at a time (sql/queries/rollups_rebuild_events.sql).
--
-- A BRIN index keeps, per 32 heap pages, a summary of the app ids and the event times found
-- there: a few hundred kilobytes for millions of rows, and next to nothing per insert. It works
-- because of how rows land:
-- * a partition is written in arrival order, and events arrive minutes after they happen, so a
--   range of pages covers minutes of event time;
-- * each group commit writes its rows sorted by app (TapwireStore/EventWriter.swift), so under
--   load a range of pages holds a few apps' rows, not every app's;
-- * the minmax-multi summaries keep up to 32 values or intervals per column, so a few late
--   events (a device offline for hours) or a few dozen apps in a range do not widen it to the
--   whole day.
-- What it costs: a read of one app's hour scans the page ranges whose summaries match and
-- rechecks their rows. In the worst case measured, a day of 2M events of 10 apps interleaved
-- row by row, 2% of them up to 6 hours late, one app's hour took 43 ms against 4.5 ms with the
-- btree. A 30-day Asia/Kolkata report over 3M events (30 such hours) took 330 ms, against 406 ms
-- with the btree (docs/reports.md).
--
-- A range that was never summarised matches every read, so each must be. VACUUM summarises
-- only whole ranges, and autovacuum may never vacuum a finished day again, while autosummarize
-- queues a request per filled range in a queue of 256 that autovacuum empties once a minute:
-- at 100k events/s it overflowed and logged a line per range. So the collector's fold loop
-- calls tapwire_summarize_recent_event_ranges() after each fold (TapwireStore/RollupFolder.swift).
CREATE INDEX events_by_app_time_brin ON events
    USING brin (app_id int8_minmax_multi_ops, event_time timestamptz_minmax_multi_ops)
    WITH (pages_per_range = 32);

DROP INDEX events_by_app_time;

-- Summarises the whole BRIN ranges not yet summarised (the last, partly filled range of a
-- partition stays unsummarised, so every read scans its at most 32 pages) of the partitions
-- from two days ago to tomorrow (older days take few late events; VACUUM summarises
-- them). A partition locked by VACUUM, by another collector's call or by a retention detach is
-- skipped, and caught up by the next call. Returns how many ranges it summarised.
CREATE FUNCTION tapwire_summarize_recent_event_ranges()
RETURNS bigint LANGUAGE plpgsql
SET lock_timeout = '100ms'
AS $fn$
DECLARE
    partition_index regclass;
    summarized bigint := 0;
BEGIN
    FOR partition_index IN
        SELECT x.indexrelid::regclass
        FROM tapwire_event_partitions() p
        JOIN pg_index x ON x.indrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident(p.partition_name))
        JOIN pg_inherits i ON i.inhrelid = x.indexrelid AND i.inhparent = 'events_by_app_time_brin'::regclass
        WHERE p.range_end > now() - interval '2 days' AND p.range_start < now() + interval '1 day'
          AND NOT p.detach_pending
        ORDER BY p.range_start
    LOOP
        BEGIN
            summarized := summarized + brin_summarize_new_values(partition_index);
        EXCEPTION WHEN lock_not_available THEN
            NULL;
        END;
    END LOOP;
    RETURN summarized;
END
$fn$;
