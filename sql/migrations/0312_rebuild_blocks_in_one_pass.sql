-- 0312: the blocks of days of a rebuilt day are made again in one pass per table, through the same
-- generic part as the day's rows (tapwire_replace_part, 0311; docs/reports.md, "Rebuilding").
--
-- 0310's tapwire_rebuild_app_blocks ran five statements (the totals, the actions, the histograms,
-- the dismiss base and the dismiss blocks), each reading the blocks' stored rows three times (an
-- UPDATE, an INSERT's anti join, a DELETE's anti join). Now one statement: each table's blocks
-- summed from their days' rows (grain 2), as 0310 sums them, in one FULL JOIN with the blocks'
-- stored rows; only the keys that differ are written. $1 is the app, $2, $3 and $4 the blocks'
-- grains, first days and ends, pair by pair (a stored row is the blocks' only if its grain and
-- bucket are one of the pairs).
CREATE FUNCTION tapwire_rebuild_blocks_statement() RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $fn$
DECLARE
    scope text := 't.app_id = $1 AND t.grain = ANY ($2) AND t.bucket = ANY ($3)
                   AND (t.grain, t.bucket) IN (SELECT b.grain, b.start FROM b)';
    days text := 'FROM b JOIN %I d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop WHERE d.app_id = $1';
BEGIN
    RETURN 'WITH b AS (
        SELECT * FROM unnest($2, $3, $4) AS b(grain, start, stop)
    ),'
    || tapwire_replace_part('totals', 'rollup_totals', '{app_id, grain, bucket, category, has_media}',
           '{delivered, sent, media_requested, opens, dismissals, actions, replies}',
           'SELECT d.app_id, b.grain, b.start AS bucket, d.category, d.has_media, sum(d.delivered)::bigint AS delivered, sum(d.sent)::bigint AS sent,
                   sum(d.media_requested)::bigint AS media_requested, sum(d.opens)::bigint AS opens, sum(d.dismissals)::bigint AS dismissals,
                   sum(d.actions)::bigint AS actions, sum(d.replies)::bigint AS replies
            ' || format(days, 'rollup_totals') || '
            GROUP BY 1, 2, 3, 4, 5', scope) || ','
    || tapwire_replace_part('actions', 'rollup_total_actions', '{app_id, grain, bucket, category, action}', '{n}',
           'SELECT d.app_id, b.grain, b.start AS bucket, d.category, d.action, sum(d.n)::bigint AS n
            ' || format(days, 'rollup_total_actions') || '
            GROUP BY 1, 2, 3, 4, 5', scope) || ','
    || tapwire_replace_part('histograms', 'rollup_total_histograms', '{app_id, grain, bucket, category, metric}', '{bins, counts}',
           'SELECT app_id, grain, start AS bucket, category, metric, array_agg(bin ORDER BY bin) AS bins, array_agg(n ORDER BY bin) AS counts
            FROM (SELECT d.app_id, b.grain, b.start, d.category, d.metric, u.bin, sum(u.n)::bigint AS n
                  FROM b JOIN rollup_total_histograms d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
                  CROSS JOIN LATERAL unnest(d.bins, d.counts) AS u(bin, n)
                  WHERE d.app_id = $1
                  GROUP BY 1, 2, 3, 4, 5, 6) s
            GROUP BY 1, 2, 3, 4, 5', scope) || ','
    || tapwire_replace_part('dismiss', 'rollup_dismiss_base', '{app_id, grain, bucket, category, app_version}', '{delivered, dismissals}',
           'SELECT d.app_id, b.grain, b.start AS bucket, d.category, d.app_version, sum(d.delivered)::bigint AS delivered,
                   sum(d.dismissals)::bigint AS dismissals
            ' || format(days, 'rollup_dismiss_base') || '
            GROUP BY 1, 2, 3, 4, 5', scope) || ','
    || tapwire_replace_part('dismiss_blocks', 'rollup_dismiss_blocks', '{app_id, grain, bucket, category}', '{delivered, dismissals}',
           'SELECT d.app_id, b.grain, b.start AS bucket, d.category, sum(d.delivered)::bigint AS delivered, sum(d.dismissals)::bigint AS dismissals
            ' || format(days, 'rollup_dismiss_blocks') || '
            GROUP BY 1, 2, 3, 4', scope)
    || '
    SELECT 1';
END
$fn$;

CREATE OR REPLACE FUNCTION tapwire_rebuild_app_blocks(app bigint, grains smallint[], starts timestamptz[], stops timestamptz[]) RETURNS void
LANGUAGE plpgsql SET enable_nestloop = on SET jit = off AS $fn$
BEGIN
    EXECUTE tapwire_rebuild_blocks_statement() USING app, grains, starts, stops;
END
$fn$;
