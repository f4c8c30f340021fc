-- Totals of app $1 by category and rich/text-only from rollup_totals: the blocks of days ($2[i]
-- of grain, $3[i] first midnight) that cover the range's whole UTC days, summed, and the quarter
-- hours $4 (grain 0) of the days the range's edges cut, summed per cut day (`cut_day`, days since
-- 1970-01-01; NULL for the whole days). The plan of what to read is TapwireReport/ReportPlan.swift;
-- the minutes off the quarter hour come from events.
SELECT category, has_media, cut_day,
    sum(delivered)::bigint AS delivered, sum(sent)::bigint AS sent, sum(media_requested)::bigint AS media_requested,
    sum(opens)::bigint AS opens, sum(dismissals)::bigint AS dismissals, sum(actions)::bigint AS actions,
    sum(replies)::bigint AS replies
FROM (SELECT t.*, NULL::bigint AS cut_day
      FROM unnest($2::smallint[], $3::timestamptz[]) AS b(grain, bucket)
      JOIN rollup_totals t ON t.app_id = $1::bigint AND t.grain = b.grain AND t.bucket = b.bucket
      UNION ALL
      SELECT t.*, date_part('epoch', t.bucket)::bigint / 86400
      FROM rollup_totals t
      WHERE t.app_id = $1::bigint AND t.grain = 0 AND t.bucket = ANY ($4::timestamptz[])) r
GROUP BY 1, 2, 3
