-- 0105: the release-regression check's hourly looks, taken once and stored (docs/regressions.md,
-- "Stored looks").
--
-- The check is defined on hourly looks: an instant within an hour shows the look of that hour's
-- start. The collectors' FindingMonitor takes each hour's look a few minutes after the hour ends
-- and stores it here; `tapwire alerts`, GET /v1/findings and the report's findings sections serve
-- the current hour's look from here when it still applies, instead of replaying every hour since
-- the release (most of their time before this table).
--
-- A stored look applies to a reader with the same settings (`configuration`:
-- RegressionConfiguration.lookFingerprint, which carries the stored format's version) while the
-- app's manifests in force are those it saw (`manifests_state`). The primary key makes a look
-- taken once across collectors: each inserts with ON CONFLICT DO NOTHING and reads the winner.
-- Each insert deletes the app's looks older than a few days (RegressionLookStore.historyHours),
-- so the table holds a bounded number of rows per app and configuration.

-- The manifests in force for each version of an app, as one digest: it changes whenever a post
-- changes which manifest is in force for a version (current_manifests, migration 0001), and
-- stays when a repeat post of the same content only moves last_posted_at. '' for no manifests.
-- Each entry is length-prefixed so no two lists of versions read the same.
CREATE FUNCTION tapwire_manifests_state(app bigint) RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
RETURN (SELECT coalesce(encode(sha256(convert_to(string_agg(length(c.app_version) || ':' || c.app_version || '='
                                                            || encode(c.content_hash, 'hex'), ',' ORDER BY c.app_version), 'UTF8')), 'hex'), '')
        FROM current_manifests c WHERE c.app_id = app);

CREATE TABLE regression_looks (
    app_id          bigint      NOT NULL,
    -- The whole hour the look ends at: it used the hours before it (an instant within the hour
    -- that starts here shows this look).
    looks_end       timestamptz NOT NULL,
    -- RegressionConfiguration.lookFingerprint: every setting the result depends on, and the
    -- version of the stored shape and rule.
    configuration   text        NOT NULL,
    -- tapwire_manifests_state(app_id), read before the look was computed.
    manifests_state text        NOT NULL,
    taken_at        timestamptz NOT NULL,
    -- The RegressionCheck as Codable JSON. text, not jsonb: nothing queries inside it, and
    -- jsonb would parse it on every write and print it on every read.
    body            text        NOT NULL,
    PRIMARY KEY (app_id, looks_end, configuration)
);

INSERT INTO tapwire_table_layout (table_name, layout, reason) VALUES
    ('regression_looks', 'distributed', 'stored hourly release-regression looks, a few days per app');
SELECT tapwire_apply_citus_layout();
