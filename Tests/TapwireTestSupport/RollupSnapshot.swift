import TapwireRollupOracle
import TapwireStore

/// Every rollup row of one app (the report rollups, the release-regression rollups and the
/// mismatch usage, hourly and daily), as text in key order: what the tests compare with the SQL
/// oracle's recomputation (`RollupOracle`) and with `tapwire rollups rebuild`. The sums of
/// rollup_uplift_days are exact decimals, compared without trailing zeros.
public enum RollupSnapshot {
    public static let sql = """
    SELECT 't' AS t, grain::text AS a, bucket::text AS b, category AS c, has_media::text AS d, '' AS e, '' AS f,
           concat_ws(' ', delivered, sent, media_requested, opens, dismissals, actions, replies) AS g
           FROM rollup_totals WHERE app_id = $1::bigint
    UNION ALL SELECT 'a', grain::text, bucket::text, category, action, '', '', n::text FROM rollup_total_actions WHERE app_id = $1::bigint
    UNION ALL SELECT 'h', grain::text, bucket::text, category, metric::text, bins::text, '', counts::text
           FROM rollup_total_histograms WHERE app_id = $1::bigint
    UNION ALL SELECT 'n', '', day::text, category, '', '', delivered_running::text, engaged_running::text FROM rollup_trend WHERE app_id = $1::bigint
    UNION ALL SELECT 'x', grain::text, bucket::text, category, app_version, '', delivered::text, dismissals::text
           FROM rollup_dismiss_base WHERE app_id = $1::bigint
    UNION ALL SELECT 'z', grain::text, bucket::text, category, '', '', delivered::text, dismissals::text
           FROM rollup_dismiss_blocks WHERE app_id = $1::bigint
    UNION ALL SELECT 'v', '', '', '', app_version, '', '', '' FROM rollup_dismiss_versions WHERE app_id = $1::bigint
    UNION ALL SELECT 'y', '', day::text, category, app_version, '', delivered_running::text, dismissals_running::text
           FROM rollup_dismiss_quarters WHERE app_id = $1::bigint
    UNION ALL SELECT 's', '', day::text, category, campaign, platform, '',
           concat_ws(' ', rich_delivered, rich_engaged, text_delivered, text_engaged) FROM rollup_strata WHERE app_id = $1::bigint
    UNION ALL SELECT 'm', '', day::text, category, '', '', concat_ws(' ', strata, excluded_delivered, used_rich_delivered,
           used_rich_engaged, used_text_delivered, used_text_engaged, both_rich_delivered, both_rich_engaged, both_text_delivered,
           both_text_engaged, not_meaningful_delivered, engaged_without_deliveries),
           concat_ws(' ', trim_scale(weights), trim_scale(numerator), trim_scale(p), trim_scale(q), trim_scale(null_sum), trim_scale(deviation))
           FROM rollup_uplift_days WHERE app_id = $1::bigint
    UNION ALL SELECT 'g', dimension, day::text, category, value, has_media::text, '', concat_ws(' ', delivered, sent, opens, actions)
           FROM rollup_marginals WHERE app_id = $1::bigint
    UNION ALL SELECT 'r', '', day::text, category, app_version, platform, '',
           delivered::text || ' ' || opens::text || ' ' || dismissals::text || ' ' || replies::text
           FROM rollup_release_counts WHERE app_id = $1::bigint
    UNION ALL SELECT 'q', '', day::text, category, app_version, platform, action, n::text FROM rollup_release_actions WHERE app_id = $1::bigint
    UNION ALL SELECT 'u', category_registered::text, bucket::text, category, app_version, platform, type::text || ' ' || action,
           first_seen::text || ' ' || last_seen::text || ' ' || event_count::text FROM mismatch_usage_hourly WHERE app_id = $1::bigint
    UNION ALL SELECT 'd', category_registered::text, day::text, category, app_version, platform, type::text || ' ' || action,
           first_seen::text || ' ' || last_seen::text || ' ' || event_count::text FROM mismatch_usage_daily WHERE app_id = $1::bigint
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
    """

    public static func rows(appId: Int64, on connection: PostgresConnection) throws -> [[String?]] {
        try connection.query(sql, [String(appId)]).rows
    }

    /// The app's rollups as the SQL oracle recomputes them over the hours its events span,
    /// replacing what is stored: the other side of every "the fold (or the rebuild) wrote what
    /// the oracle writes" comparison. Throws when the app has no events, as there is nothing to compare.
    public static func recomputedByOracle(appId: Int64, on connection: PostgresConnection) throws -> [[String?]] {
        guard let hours = try RollupStore().eventHours(appId: appId, on: connection) else { throw NoEvents(appId: appId) }
        try RollupOracle.recompute(appId: appId, from: hours.from, to: hours.to, on: connection)
        return try rows(appId: appId, on: connection)
    }

    /// `recomputedByOracle` found no event of the app.
    public struct NoEvents: Error, CustomStringConvertible {
        public let appId: Int64
        public var description: String { "app \(appId) has no events to recompute its rollups from" }
    }
}
