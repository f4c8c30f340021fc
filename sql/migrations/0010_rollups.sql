-- 0010: rollups for the engagement report, kept exactly consistent with events.
--
-- The group commit (sql/fresh/10-12_rollup_*.sql) adds the newly stored rows of each commit
-- to these tables in the same transaction as the insert, so they can never drift from events;
-- `tapwire rollups rebuild` recomputes them from events (sql/queries/rollups_rebuild_*.sql).
--
-- Time buckets are UTC hours. A report in any time zone reads the whole hours that fall inside
-- one local day and inside [from, to) from here, and the few remaining hours (a range edge that
-- is not on the hour, a local midnight that is not on the hour, as in UTC+05:30) from events,
-- so every report is exact at its edges whatever the zone. Daily buckets could not do that for
-- any zone but UTC.
--
-- Size grows with apps × categories × hours × the distinct dimension values, not with events.
-- Each table holds the same counts at several grains, so an unfiltered report reads a few
-- rows per category and hour while filters and --by still come from rollups:
--   grain 0: by app_version, platform, campaign and variant (every filter and grouping);
--   grain 1: by app_version only (rollup_counts; the dismiss base needs each version's manifest);
--   grain 2: no dimensions (rollup_actions and rollup_histograms);
--   grain 3: no dimensions, by UTC day (`hour` is the day's midnight; rollup_actions and
--            rollup_histograms), because their report totals need no local days, only exact
--            range edges: a 30-day report then reads 30 rows per category and bin, not 720.
-- Dimensions a grain does not keep are ''. A missing campaign or variant is '' as well.

-- The UTC hour an instant falls in, whatever the session's TimeZone.
CREATE FUNCTION tapwire_hour(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN date_bin('1 hour', t, timestamptz '2000-01-01 00:00:00+00');

-- The UTC day an instant falls in, as its midnight.
CREATE FUNCTION tapwire_utc_day(t timestamptz) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN date_bin('1 day', t, timestamptz '2000-01-01 00:00:00+00');

-- Reply-length histogram bin: exact up to 500 characters, 501 for anything longer
-- (TapwireCore.ReplyLengthBins).
CREATE FUNCTION tapwire_reply_bin(text_length integer) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN least(greatest(text_length, 0), 501)::smallint;

-- Time-to-response histogram bin: 0 below one second (and for a response stamped before its
-- delivery), then 4 log-spaced bins per doubling, bin k holding [2^((k-1)/4), 2^(k/4)) seconds,
-- the last (100) open-ended (TapwireCore.LatencyBins).
CREATE FUNCTION tapwire_latency_bin(responded timestamptz, delivered timestamptz) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
    WHEN date_part('epoch', responded - delivered) < 1 THEN 0
    ELSE least(100, 1 + floor(4 * ln(date_part('epoch', responded - delivered)) / ln(2::float8)))
END::smallint;

-- Counts per hour, category, dimensions and rich/text-only (has_media of the event).
CREATE TABLE rollup_counts (
    app_id          bigint      NOT NULL,
    grain           smallint    NOT NULL CHECK (grain IN (0, 1)),
    hour            timestamptz NOT NULL,
    category        text        NOT NULL,
    app_version     text        NOT NULL,
    platform        text        NOT NULL,
    campaign        text        NOT NULL,
    variant         text        NOT NULL,
    has_media       boolean     NOT NULL,
    delivered       bigint      NOT NULL,
    sent            bigint      NOT NULL,
    -- Delivered events whose payload asked for media; on has_media = false rows these are the
    -- media failures (requested but shown without attachments).
    media_requested bigint      NOT NULL,
    -- Responses with the default action (the user opened the notification).
    opens           bigint      NOT NULL,
    -- Responses with the dismiss action (reported only under customDismissAction).
    dismissals      bigint      NOT NULL,
    -- Responses with an action the app registered, text replies included.
    actions         bigint      NOT NULL,
    -- The subset of `actions` carrying a reply length.
    replies         bigint      NOT NULL,
    PRIMARY KEY (app_id, grain, hour, category, app_version, platform, campaign, variant, has_media)
);

-- Count per registered action identifier (system actions are in rollup_counts).
CREATE TABLE rollup_actions (
    app_id      bigint      NOT NULL,
    grain       smallint    NOT NULL CHECK (grain IN (0, 2, 3)),
    hour        timestamptz NOT NULL,
    category    text        NOT NULL,
    app_version text        NOT NULL,
    platform    text        NOT NULL,
    campaign    text        NOT NULL,
    variant     text        NOT NULL,
    action      text        NOT NULL,
    n           bigint      NOT NULL,
    PRIMARY KEY (app_id, grain, hour, category, app_version, platform, campaign, variant, action)
);

-- Percentile histograms. metric 1: reply length (tapwire_reply_bin), metric 2: seconds from
-- delivery to an engaged response (tapwire_latency_bin; dismissals are not engagement).
CREATE TABLE rollup_histograms (
    app_id      bigint      NOT NULL,
    grain       smallint    NOT NULL CHECK (grain IN (0, 2, 3)),
    hour        timestamptz NOT NULL,
    category    text        NOT NULL,
    app_version text        NOT NULL,
    platform    text        NOT NULL,
    campaign    text        NOT NULL,
    variant     text        NOT NULL,
    metric      smallint    NOT NULL CHECK (metric IN (1, 2)),
    bin         smallint    NOT NULL,
    n           bigint      NOT NULL,
    PRIMARY KEY (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin)
);
