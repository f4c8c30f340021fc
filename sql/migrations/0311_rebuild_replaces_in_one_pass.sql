-- 0311: a rebuilt day's rows are replaced in one pass over each table's stored rows (issue 33;
-- docs/reports.md, "Rebuilding").
--
-- 0310's tapwire_replace_app_rollups read each table's stored rows of the day three times: one
-- UPDATE joined them with the day's new rows, one INSERT looked each new row up in them (an anti
-- join), one DELETE looked each stored row up in the new ones; the same fifteen lines per table,
-- fifteen times. And it grouped mismatch_usage_hourly's and _daily's new rows again, though the
-- rebuild writes each of their keys once (RollupRows.usageHourly and .usageDaily are keyed by
-- the row's key).
--
-- Now one FULL JOIN per table of the day's new rows with its stored rows (each stored row read
-- once) keeps only the keys that differ: a key on both sides whose values are the same is
-- dropped there; the others are materialised once and feed three writes by key (UPDATE of a
-- changed row, DELETE of a row the day no longer has, INSERT of a new one): a nested loop of the
-- few differing keys over the primary key. Not by ctid: Citus refuses a modification whose
-- WHERE names ctid once it plans the statement's CTEs on their own ("Recursively planned
-- distributed modifications with ctid on where clause are not supported", CitusCommandTests). A
-- day whose rows all equal the stored ones reads every table's rows of the day once and writes
-- nothing. What is written is what 0310 wrote, row for row.
--
-- The fifteen copies are one generic text (tapwire_replace_part: the table, its key and value
-- columns as identifiers, %I), joined into one statement run with EXECUTE … USING (the app and
-- the day are parameters). The sums over the strata (rollup_uplift_days,
-- rollup_conversion_base_days) are recomputed from the day's strata as 0310 does, and each
-- stratum whose delivered changed is queued for attribution once, from its stored delivered to
-- its new one, as 0310 does (its stored values now come from the same pass over the strata).
-- One app per statement, each stored row read naming the app, as 0310 does (Citus routes it).

-- The part of the statement that replaces one table's rows: CTEs named PART_new (NEW_ROWS, its
-- columns named as the table's KEYS and VALS), PART_diff (the keys that differ: tapwire_stored
-- NULL for a new key, tapwire_present NULL for a key the day no longer has, the keys, the new
-- values and the stored ones as old_VAL), PART_set, PART_add and PART_gone. SCOPE selects
-- the stored rows the day replaces, the table aliased t, with $1 the app, $2 and $3 the day.
-- Values named in AS_TEXT are compared by their text (numeric sums, whose scale is stored).
CREATE FUNCTION tapwire_replace_part(part text, tbl text, keys text[], vals text[], new_rows text, scope text,
                                     as_text text[] DEFAULT '{}') RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
    key_list text := (SELECT string_agg(format('%I', k), ', ' ORDER BY i) FROM unnest(keys) WITH ORDINALITY AS u(k, i));
    val_list text := (SELECT string_agg(format('%I', v), ', ' ORDER BY i) FROM unnest(vals) WITH ORDINALITY AS u(v, i));
    diff_cols text := (SELECT string_agg(format('coalesce(n.%1$I, o.%1$I) AS %1$I', k), ', ' ORDER BY i) FROM unnest(keys) WITH ORDINALITY AS u(k, i))
                   || ', ' || (SELECT string_agg(format('n.%1$I, o.%1$I AS %2$I', v, 'old_' || v), ', ' ORDER BY i) FROM unnest(vals) WITH ORDINALITY AS u(v, i));
    joined text := (SELECT string_agg(format('n.%1$I = o.%1$I', k), ' AND ' ORDER BY i) FROM unnest(keys) WITH ORDINALITY AS u(k, i));
    old_vals text := (SELECT string_agg(CASE WHEN v = ANY (as_text) THEN format('o.%I::text', v) ELSE format('o.%I', v) END, ', ' ORDER BY i)
                      FROM unnest(vals) WITH ORDINALITY AS u(v, i));
    new_vals text := (SELECT string_agg(CASE WHEN v = ANY (as_text) THEN format('n.%I::text', v) ELSE format('n.%I', v) END, ', ' ORDER BY i)
                      FROM unnest(vals) WITH ORDINALITY AS u(v, i));
    set_list text := (SELECT string_agg(format('%1$I = d.%1$I', v), ', ' ORDER BY i) FROM unnest(vals) WITH ORDINALITY AS u(v, i));
    by_key text := (SELECT string_agg(format('t.%1$I = d.%1$I', k), ' AND ' ORDER BY i) FROM unnest(keys) WITH ORDINALITY AS u(k, i));
BEGIN
    RETURN format($part$
    %1$s_new AS (
        %3$s
    ), %1$s_diff AS MATERIALIZED (
        SELECT o.tapwire_stored, n.tapwire_present, %4$s
        FROM (SELECT true AS tapwire_present, * FROM %1$s_new) n
        FULL JOIN (SELECT true AS tapwire_stored, %5$s, %6$s FROM %2$I t WHERE %7$s) o ON %8$s
        WHERE o.tapwire_stored IS NULL OR n.tapwire_present IS NULL OR ROW(%9$s) IS DISTINCT FROM ROW(%10$s)
    ), %1$s_set AS (
        UPDATE %2$I t SET %11$s
        FROM %1$s_diff d
        WHERE %12$s AND d.tapwire_stored AND d.tapwire_present AND %7$s
    ), %1$s_add AS (
        INSERT INTO %2$I (%5$s, %6$s)
        SELECT %5$s, %6$s FROM %1$s_diff WHERE tapwire_stored IS NULL
        ORDER BY %5$s
    ), %1$s_gone AS (
        DELETE FROM %2$I t
        USING %1$s_diff d
        WHERE %12$s AND d.tapwire_present IS NULL AND %7$s
    )$part$,
        part, tbl, new_rows, diff_cols, key_list, val_list, scope, joined, old_vals, new_vals, set_list, by_key);
END
$fn$;

-- The whole statement of one app's day (one text; the parts in 0310's order).
CREATE FUNCTION tapwire_replace_statement() RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
    by_grain text := 't.app_id = $1 AND t.grain IN (0, 2) AND t.bucket >= $2 AND t.bucket < $3';
    by_day text := 't.app_id = $1 AND t.day >= $2 AND t.day < $3';
    sums text := 'strata, excluded_delivered, weights, numerator, p, q, null_sum, deviation, used_rich_delivered, used_rich_engaged,
        used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged, both_text_delivered, both_text_engaged,
        not_meaningful_delivered, engaged_without_deliveries';
    sum_terms text := 'sum(n.strata - o.strata) AS strata, sum(n.excluded_delivered - o.excluded_delivered) AS excluded_delivered,
            sum(n.weights - o.weights) AS weights, sum(n.numerator - o.numerator) AS numerator, sum(n.p - o.p) AS p, sum(n.q - o.q) AS q,
            sum(n.null_sum - o.null_sum) AS null_sum, sum(n.deviation - o.deviation) AS deviation,
            sum(n.used_rich_delivered - o.used_rich_delivered) AS used_rich_delivered, sum(n.used_rich_engaged - o.used_rich_engaged) AS used_rich_engaged,
            sum(n.used_text_delivered - o.used_text_delivered) AS used_text_delivered, sum(n.used_text_engaged - o.used_text_engaged) AS used_text_engaged,
            sum(n.both_rich_delivered - o.both_rich_delivered) AS both_rich_delivered, sum(n.both_rich_engaged - o.both_rich_engaged) AS both_rich_engaged,
            sum(n.both_text_delivered - o.both_text_delivered) AS both_text_delivered, sum(n.both_text_engaged - o.both_text_engaged) AS both_text_engaged,
            sum(n.not_meaningful_delivered - o.not_meaningful_delivered) AS not_meaningful_delivered,
            sum(n.engaged_without_deliveries - o.engaged_without_deliveries) AS engaged_without_deliveries';
    exact text[] := '{weights, numerator, p, q, null_sum, deviation}';
    release_keys text[] := '{app_id, day, category, app_version, platform}';
    usage_keys text[] := '{app_version, platform, type, category, action, category_registered}';
BEGIN
    RETURN 'WITH pending AS (
        DELETE FROM rollup_deltas WHERE app_id = $1 AND (kind IN (4, 5) OR kind >= 11) RETURNING *
    ),'
    || tapwire_replace_part('totals', 'rollup_totals', '{app_id, grain, bucket, category, has_media}',
           '{delivered, sent, media_requested, opens, dismissals, actions, replies}',
           'SELECT app_id, grain, bucket, category, has_media, n1 AS delivered, n2 AS sent, n3 AS media_requested, n4 AS opens,
                   n5 AS dismissals, n6 AS actions, n7 AS replies FROM pending WHERE kind = 11', by_grain) || ','
    || tapwire_replace_part('actions', 'rollup_total_actions', '{app_id, grain, bucket, category, action}', '{n}',
           'SELECT app_id, grain, bucket, category, action, n1 AS n FROM pending WHERE kind = 12', by_grain) || ','
    || tapwire_replace_part('histograms', 'rollup_total_histograms', '{app_id, grain, bucket, category, metric}', '{bins, counts}',
           'SELECT app_id, grain, bucket, category, metric, bins, a1 AS counts FROM pending WHERE kind = 13', by_grain) || ','
    || tapwire_replace_part('trend', 'rollup_trend', '{app_id, day, category}', '{delivered_running, engaged_running}',
           'SELECT app_id, bucket AS day, category, tapwire_running_slots(first_slot, a1) AS delivered_running,
                   tapwire_running_slots(first_slot, a2) AS engaged_running FROM pending WHERE kind = 14', by_day) || ','
    || tapwire_replace_part('dismiss', 'rollup_dismiss_base', '{app_id, grain, bucket, category, app_version}', '{delivered, dismissals}',
           'SELECT app_id, grain, bucket, category, app_version, n1 AS delivered, n2 AS dismissals FROM pending WHERE kind = 15',
           't.app_id = $1 AND t.grain = 2 AND t.bucket >= $2 AND t.bucket < $3') || ','
    -- rollup_dismiss_blocks (the day, grain 2): the same rows summed over their versions (0301).
    || tapwire_replace_part('dismiss_blocks', 'rollup_dismiss_blocks', '{app_id, grain, bucket, category}', '{delivered, dismissals}',
           'SELECT app_id, grain, bucket, category, sum(delivered) AS delivered, sum(dismissals) AS dismissals FROM dismiss_new GROUP BY 1, 2, 3, 4',
           't.app_id = $1 AND t.grain = 2 AND t.bucket >= $2 AND t.bucket < $3') || ','
    || '
    dismiss_versions AS (
        -- 0301: the versions the rows name, once each (a version stays once it had rows).
        INSERT INTO rollup_dismiss_versions (app_id, app_version)
        SELECT DISTINCT app_id, app_version FROM dismiss_new ORDER BY 1, 2
        ON CONFLICT (app_id, app_version) DO NOTHING
    ),'
    || tapwire_replace_part('quarters', 'rollup_dismiss_quarters', '{app_id, day, category, app_version}', '{delivered_running, dismissals_running}',
           'SELECT app_id, bucket AS day, category, app_version, tapwire_running_slots(first_slot, a1) AS delivered_running,
                   tapwire_running_slots(first_slot, a2) AS dismissals_running FROM pending WHERE kind = 20', by_day) || ','
    || tapwire_replace_part('strata', 'rollup_strata', '{app_id, day, category, campaign, platform}',
           '{rich_delivered, rich_engaged, text_delivered, text_engaged}',
           'SELECT app_id, bucket AS day, category, campaign, platform, n1 AS rich_delivered, n2 AS rich_engaged, n3 AS text_delivered,
                   n4 AS text_engaged FROM pending WHERE kind = 16', by_day) || ','
    || '
    conversion_delivered AS (
        -- Each stratum whose delivered changed, from what was stored to what the day has (a
        -- stratum on one side only counts 0 on the other).
        INSERT INTO conversion_strata_pending (app_id, day, category, campaign, platform, rich_before, text_before, rich_after, text_after)
        SELECT app_id, day, category, campaign, platform, coalesce(old_rich_delivered, 0), coalesce(old_text_delivered, 0),
               coalesce(rich_delivered, 0), coalesce(text_delivered, 0)
        FROM strata_diff
        WHERE coalesce(old_rich_delivered, 0) <> coalesce(rich_delivered, 0) OR coalesce(old_text_delivered, 0) <> coalesce(text_delivered, 0)
    ),'
    -- As the fold adds them to a day without strata (tapwire_fold_rollups of 0301).
    || tapwire_replace_part('uplift', 'rollup_uplift_days', '{app_id, day, category}', ('{' || sums || '}')::text[],
           'SELECT s.app_id, s.day, s.category, ' || sum_terms || '
            FROM strata_new s
            CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, s.rich_engaged, s.text_delivered, s.text_engaged) n
            CROSS JOIN LATERAL tapwire_uplift_terms(0, 0, 0, 0) o
            GROUP BY s.app_id, s.day, s.category', by_day, exact) || ','
    -- Migration 0180: the same terms as if nothing had converted, over the strata with deliveries.
    || tapwire_replace_part('base', 'rollup_conversion_base_days', '{app_id, day, category}', ('{' || sums || '}')::text[],
           'SELECT s.app_id, s.day, s.category, ' || sum_terms || '
            FROM strata_new s
            CROSS JOIN LATERAL tapwire_uplift_terms(s.rich_delivered, 0, s.text_delivered, 0) n
            CROSS JOIN LATERAL tapwire_uplift_terms(0, 0, 0, 0) o
            WHERE s.rich_delivered <> 0 OR s.text_delivered <> 0
            GROUP BY s.app_id, s.day, s.category', by_day, exact) || ','
    || tapwire_replace_part('marginals', 'rollup_marginals', '{app_id, day, dimension, value, category, has_media}',
           '{delivered, sent, opens, actions}',
           'SELECT app_id, bucket AS day, dimension, value, category, has_media, n1 AS delivered, n2 AS sent, n3 AS opens, n4 AS actions
            FROM pending WHERE kind = 17', by_day) || ','
    -- The rebuild writes each key of the mismatch usage once: its rows are taken as they are.
    || tapwire_replace_part('hourly', 'mismatch_usage_hourly', '{app_id, bucket}'::text[] || usage_keys, '{event_count, first_seen, last_seen}',
           'SELECT app_id, bucket, app_version, platform, type, category, action, category_registered, n1 AS event_count, first_seen, last_seen
            FROM pending WHERE kind = 4', 't.app_id = $1 AND t.bucket >= $2 AND t.bucket < $3') || ','
    || tapwire_replace_part('daily', 'mismatch_usage_daily', '{app_id, day}'::text[] || usage_keys, '{event_count, first_seen, last_seen}',
           'SELECT app_id, (bucket AT TIME ZONE ''UTC'')::date AS day, app_version, platform, type, category, action, category_registered,
                   n1 AS event_count, first_seen, last_seen
            FROM pending WHERE kind = 5',
           't.app_id = $1 AND t.day >= ($2 AT TIME ZONE ''UTC'')::date AND t.day < ($3 AT TIME ZONE ''UTC'')::date') || ','
    || tapwire_replace_part('release', 'rollup_release_counts', release_keys, '{delivered, opens, dismissals, replies}',
           'SELECT app_id, bucket AS day, category, app_version, platform, tapwire_hour_slots(first_slot, a1) AS delivered,
                   tapwire_hour_slots(first_slot, a2) AS opens, tapwire_hour_slots(first_slot, a3) AS dismissals,
                   tapwire_hour_slots(first_slot, a4) AS replies
            FROM pending WHERE kind = 18', by_day) || ','
    || tapwire_replace_part('release_actions', 'rollup_release_actions', release_keys || '{action}'::text[], '{n}',
           'SELECT app_id, bucket AS day, category, app_version, platform, action, tapwire_hour_slots(first_slot, a1) AS n
            FROM pending WHERE kind = 19', by_day)
    || '
    SELECT count(*) FROM pending';
END
$fn$;

-- The diff's writes go by key: a nested loop of the few differing rows over the primary key
-- (0310's enable_nestloop = off was for its anti joins, which are gone; a FULL JOIN is never a
-- nested loop).
CREATE OR REPLACE FUNCTION tapwire_replace_app_rollups(app bigint, day_from timestamptz, day_to timestamptz) RETURNS bigint
LANGUAGE plpgsql SET enable_nestloop = on SET jit = off AS $fn$
DECLARE
    moved bigint;
BEGIN
    EXECUTE tapwire_replace_statement() INTO moved USING app, day_from, day_to;
    RETURN moved;
END
$fn$;
