-- 0020: the usage rollup that category-mismatch detection reads instead of raw events.
-- One row per app, UTC hour and event shape: (app version, platform, type, category, action,
-- the device's categoryRegistered flag). Maintained by the `mismatch_usage_rollup` CTE of
-- sql/queries/commit_staged.sql in the same statement that stores the events, from exactly
-- the newly stored rows, so it is always consistent with `events`. Its size grows with
-- hours x distinct shapes, not with events.
CREATE TABLE mismatch_usage (
    app_id              bigint      NOT NULL,
    -- date_trunc('hour', event_time, 'UTC'): windows are aligned to the hour.
    bucket              timestamptz NOT NULL,
    app_version         text        NOT NULL,
    platform            text        NOT NULL,
    type                event_type  NOT NULL,
    category            text        NOT NULL,
    -- '' for delivered and sent events, which carry no action.
    action              text        NOT NULL,
    -- The device's categoryRegistered: 1 true, 0 false, -1 not reported.
    category_registered smallint    NOT NULL CHECK (category_registered IN (-1, 0, 1)),
    event_count         bigint      NOT NULL CHECK (event_count > 0),
    first_seen          timestamptz NOT NULL,
    last_seen           timestamptz NOT NULL,
    PRIMARY KEY (app_id, bucket, app_version, platform, type, category, action, category_registered)
);

-- Fill it from the events already stored, so an existing install gets complete findings.
INSERT INTO mismatch_usage (app_id, bucket, app_version, platform, type, category, action,
                            category_registered, event_count, first_seen, last_seen)
SELECT app_id, date_trunc('hour', event_time, 'UTC'), app_version, platform, type, category,
       coalesce(action_identifier, ''),
       CASE category_registered WHEN true THEN 1 WHEN false THEN 0 ELSE -1 END,
       count(*), min(event_time), max(event_time)
FROM events
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
