-- 0100: grain 5, quarter hours, of rollup_counts, rollup_actions and rollup_histograms: by app
-- version, platform, campaign and variant, like grain 0, in buckets of 15 minutes; and grain 6
-- of rollup_counts, quarter hours by app version only, like grain 1 (what an unfiltered report
-- reads for the hours its local midnights cut: a few rows per quarter hour, not hundreds).
--
-- Buckets were UTC hours. A report in a zone whose local midnight falls mid-hour (Asia/Kolkata
-- +05:30, Nepal +05:45, St John's -03:30) read the hours its midnights cut from raw events:
-- 30 hours of events in a 30-day report. Every zone's offset is a multiple of 15 minutes, so a
-- quarter hour never straddles a local midnight: the report reads those hours from grain 5
-- instead, and only edges off the quarter hour (an explicit --from 10:17) from events, through
-- TapwireCore.RollupDeltas (docs/reports.md, "Quarter hours").
--
-- A group commit now stores grain 5 as its finest rows and the fold derives grains 0 and 6 from
-- them (then the other grains from grain 0), so a commit writes about as many deltas as before.
--
-- What is already stored has no grain 5, and hourly rows cannot be split. rollup_quarter_coverage
-- says, per app, from which instant grain 5 is complete: set here past every event stored so
-- far, moved back by `tapwire rollups rebuild` (which recomputes grain 5 of the days it
-- rebuilds). Before it, a report reads the cut hours from events, as before, through the same
-- Swift code. An app without a row (created after this migration) is complete throughout.
ALTER TABLE rollup_counts DROP CONSTRAINT rollup_counts_grain_check;
ALTER TABLE rollup_counts ADD CONSTRAINT rollup_counts_grain_check CHECK (grain IN (0, 1, 4, 5, 6));
ALTER TABLE rollup_actions DROP CONSTRAINT rollup_actions_grain_check;
ALTER TABLE rollup_actions ADD CONSTRAINT rollup_actions_grain_check CHECK (grain IN (0, 2, 3, 5));
ALTER TABLE rollup_histograms DROP CONSTRAINT rollup_histograms_grain_check;
ALTER TABLE rollup_histograms ADD CONSTRAINT rollup_histograms_grain_check CHECK (grain IN (0, 2, 3, 5));

-- The quarter hour an instant falls in, as its start.
CREATE FUNCTION tapwire_quarter_hour(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN date_bin('15 minutes', t, timestamptz '2000-01-01 00:00:00+00');

CREATE TABLE rollup_quarter_coverage (
    app_id        bigint      PRIMARY KEY,
    -- Grain 5 counts every event of the app at or after this instant (a quarter hour's start).
    complete_from timestamptz NOT NULL
);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('rollup_quarter_coverage', 'distributed', 'one row per app: where its quarter-hour grain is complete, co-located with the rollups');
SELECT tapwire_apply_citus_layout();

-- Past every event stored so far: events are at most a clamp ahead of the time they were
-- received (ClockSkew), so only those at or after now() are looked for, in the partitions that
-- can hold them. Events committed later by a collector of the previous version have no grain 5
-- either: docs/reports.md says to rebuild the days they wrote.
INSERT INTO rollup_quarter_coverage (app_id, complete_from)
SELECT a.app_id, tapwire_quarter_hour(greatest(now(), (SELECT max(e.event_time) FROM events e
                                                   WHERE e.app_id = a.app_id AND e.event_time >= now())))
             + interval '15 minutes'
FROM apps a;
