import TapwireStore

/// Every rollup row of one app (the engagement rollups at every grain, the release-regression
/// rollups and the mismatch usage, hourly and daily), as text in key order: what the tests
/// compare with the SQL oracle's recomputation (`RollupOracle`) and with `tapwire rollups rebuild`.
public enum RollupSnapshot {
    public static let sql = """
    SELECT 'c', grain, hour, category, app_version, platform, campaign, variant, has_media::text, '',
           delivered, sent, media_requested, opens, dismissals, actions, replies FROM rollup_counts WHERE app_id = $1::bigint
    UNION ALL SELECT 'a', grain, hour, category, app_version, platform, campaign, variant, '', action, n, 0, 0, 0, 0, 0, 0
           FROM rollup_actions WHERE app_id = $1::bigint
    UNION ALL SELECT 'h', grain, hour, category, app_version, platform, campaign, variant, metric::text, bin::text, n, 0, 0, 0, 0, 0, 0
           FROM rollup_histograms WHERE app_id = $1::bigint
    UNION ALL SELECT 'r', 0, day, category, app_version, platform, '', '', '',
           delivered::text || ' ' || opens::text || ' ' || dismissals::text || ' ' || replies::text, 0, 0, 0, 0, 0, 0, 0
           FROM rollup_release_counts WHERE app_id = $1::bigint
    UNION ALL SELECT 's', 0, day, category, app_version, platform, '', '', action, n::text, 0, 0, 0, 0, 0, 0, 0
           FROM rollup_release_actions WHERE app_id = $1::bigint
    UNION ALL SELECT 'u', 0, bucket, category, app_version, platform, type::text, action, category_registered::text,
           first_seen::text || ' ' || last_seen::text, event_count, 0, 0, 0, 0, 0, 0 FROM mismatch_usage_hourly WHERE app_id = $1::bigint
    UNION ALL SELECT 'd', 0, day, category, app_version, platform, type::text, action, category_registered::text,
           first_seen::text || ' ' || last_seen::text, event_count, 0, 0, 0, 0, 0, 0 FROM mismatch_usage_daily WHERE app_id = $1::bigint
    ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
    """

    public static func rows(appId: Int64, on connection: PostgresConnection) throws -> [[String?]] {
        try connection.query(sql, [String(appId)]).rows
    }
}
