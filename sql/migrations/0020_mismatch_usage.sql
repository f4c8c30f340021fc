-- 0020: the usage rollups that category-mismatch detection reads instead of raw events.
-- One row per app, time bucket and event shape: (app version, platform, type, category,
-- action, the device's categoryRegistered flag). Maintained by sql/fresh/20_mismatch_usage.sql
-- in every group-commit transaction that stores events, from exactly the newly stored rows, so
-- they are always consistent with `events`.
--
-- Two granularities: a window reads whole UTC days from the daily table and only its partial
-- first and last day from the hourly one, so 30 days cost ~30 + 48 buckets of shapes, and a
-- `--since 24h` window is still exact to the hour.
CREATE TABLE mismatch_usage_hourly (
    app_id              bigint      NOT NULL,
    -- date_trunc('hour', event_time, 'UTC').
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

CREATE TABLE mismatch_usage_daily (
    app_id              bigint      NOT NULL,
    -- The UTC day of event_time.
    day                 date        NOT NULL,
    app_version         text        NOT NULL,
    platform            text        NOT NULL,
    type                event_type  NOT NULL,
    category            text        NOT NULL,
    action              text        NOT NULL,
    category_registered smallint    NOT NULL CHECK (category_registered IN (-1, 0, 1)),
    event_count         bigint      NOT NULL CHECK (event_count > 0),
    first_seen          timestamptz NOT NULL,
    last_seen           timestamptz NOT NULL,
    PRIMARY KEY (app_id, day, app_version, platform, type, category, action, category_registered)
);

-- Fill both from the events already stored, so an existing install gets complete findings.
INSERT INTO mismatch_usage_hourly (app_id, bucket, app_version, platform, type, category, action,
                                   category_registered, event_count, first_seen, last_seen)
SELECT app_id, date_trunc('hour', event_time, 'UTC'), app_version, platform, type, category,
       coalesce(action_identifier, ''),
       CASE category_registered WHEN true THEN 1 WHEN false THEN 0 ELSE -1 END,
       count(*), min(event_time), max(event_time)
FROM events
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

INSERT INTO mismatch_usage_daily (app_id, day, app_version, platform, type, category, action,
                                  category_registered, event_count, first_seen, last_seen)
SELECT app_id, (bucket AT TIME ZONE 'UTC')::date, app_version, platform, type, category, action,
       category_registered, sum(event_count), min(first_seen), max(last_seen)
FROM mismatch_usage_hourly
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
