-- Report rollups, part 3: reply-length bins (registered actions carrying a length) and
-- time-to-response bins (engaged responses carrying their delivery time), per category and
-- metric, at the grains of 10_rollup_totals.sql, a row holding its bins sorted.
INSERT INTO rollup_total_histograms AS t (app_id, grain, bucket, category, metric, bins, counts)
SELECT app_id, grain, bucket, category, metric, array_agg(bin ORDER BY bin), array_agg(n ORDER BY bin)
FROM (SELECT app_id, g.grain, CASE WHEN g.grain = 0 THEN quarter ELSE tapwire_day_block(day, g.grain) END AS bucket,
             category, metric, bin, count(*) AS n
      FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_utc_day(event_time) AS day, category, m.metric, m.bin
            FROM staging_events
            CROSS JOIN LATERAL (VALUES
                (1::smallint, CASE WHEN user_text_length IS NOT NULL THEN tapwire_reply_bin(user_text_length) END),
                (2::smallint, CASE WHEN delivered_at IS NOT NULL THEN tapwire_latency_bin(event_time, delivered_at) END)) m (metric, bin)
            WHERE type = 'response' AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier'
              AND m.bin IS NOT NULL
              AND (m.metric = 2 OR action_identifier <> 'com.apple.UNNotificationDefaultActionIdentifier')) f
      CROSS JOIN (VALUES (0::smallint), (2), (3), (4), (5), (6)) AS g(grain)
      GROUP BY 1, 2, 3, 4, 5, 6) b
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT (app_id, grain, bucket, category, metric) DO UPDATE SET
    (bins, counts) = (SELECT m.bins, m.counts FROM tapwire_merge_bins(t.bins, t.counts, EXCLUDED.bins, EXCLUDED.counts) m)
