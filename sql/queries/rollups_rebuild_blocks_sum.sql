-- Step 2 of 2 (see rollups_rebuild_blocks.sql): the blocks of days that hold the rebuilt day [$2,
-- $3) of app $1 (every app when NULL), each the sum of the day rows (grain 2) of its days.
WITH blocks AS (
    SELECT g.grain::smallint AS grain, tapwire_day_block($2::timestamptz, g.grain) AS start,
           tapwire_day_block($2::timestamptz, g.grain) + (1 << (g.grain - 2)) * interval '86400 seconds' AS stop
    FROM generate_series(3, 6) AS g(grain)
    WHERE $3::timestamptz IS NOT NULL
), totals AS (
    INSERT INTO rollup_totals (app_id, grain, bucket, category, has_media, delivered, sent, media_requested, opens, dismissals,
                               actions, replies)
    SELECT d.app_id, b.grain, b.start, d.category, d.has_media, sum(d.delivered), sum(d.sent), sum(d.media_requested), sum(d.opens),
           sum(d.dismissals), sum(d.actions), sum(d.replies)
    FROM blocks b JOIN rollup_totals d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
    WHERE ($1::bigint IS NULL OR d.app_id = $1::bigint)
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
), actions AS (
    INSERT INTO rollup_total_actions (app_id, grain, bucket, category, action, n)
    SELECT d.app_id, b.grain, b.start, d.category, d.action, sum(d.n)
    FROM blocks b JOIN rollup_total_actions d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
    WHERE ($1::bigint IS NULL OR d.app_id = $1::bigint)
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
), histograms AS (
    INSERT INTO rollup_total_histograms (app_id, grain, bucket, category, metric, bins, counts)
    SELECT app_id, grain, start, category, metric, array_agg(bin ORDER BY bin), array_agg(n ORDER BY bin)
    FROM (SELECT d.app_id, b.grain, b.start, d.category, d.metric, u.bin, sum(u.n)::bigint AS n
          FROM blocks b JOIN rollup_total_histograms d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
          CROSS JOIN LATERAL unnest(d.bins, d.counts) AS u(bin, n)
          WHERE ($1::bigint IS NULL OR d.app_id = $1::bigint)
          GROUP BY 1, 2, 3, 4, 5, 6) s
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
)
INSERT INTO rollup_dismiss_base (app_id, grain, bucket, category, app_version, delivered, dismissals)
SELECT d.app_id, b.grain, b.start, d.category, d.app_version, sum(d.delivered), sum(d.dismissals)
FROM blocks b JOIN rollup_dismiss_base d ON d.grain = 2 AND d.bucket >= b.start AND d.bucket < b.stop
WHERE ($1::bigint IS NULL OR d.app_id = $1::bigint)
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
