-- On Citus, migration 0100's last statement runs as this one instead (the Migrator swaps it in;
-- the migration's text, and so its checksum, stay as they were applied):
-- replaces: INSERT INTO rollup_quarter_coverage
--
-- The same rows, with the newest event of each app found by one grouped read of events joined
-- to apps, not by a subquery per app: Citus cannot plan a subquery that refers to a reference
-- table (apps) of the query around it ("correlated subqueries are not supported when the FROM
-- clause contains a reference table"). The grouped read runs on each shard.
INSERT INTO rollup_quarter_coverage (app_id, complete_from)
SELECT a.app_id, tapwire_quarter_hour(greatest(now(), latest.event_time)) + interval '15 minutes'
FROM apps a
LEFT JOIN (SELECT e.app_id, max(e.event_time) AS event_time
           FROM events e
           WHERE e.event_time >= now()
           GROUP BY e.app_id) latest ON latest.app_id = a.app_id
