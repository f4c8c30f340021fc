import Foundation
import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireStore
import TapwireTestSupport
import TapwireRollupOracle

/// Migration 0150 on a database the previous release left: its rollups (rollup_counts,
/// rollup_actions, rollup_histograms, computed as that release's oracle computed them, below)
/// move into the tables of 0150, which then equal a recomputation from the events row for row.
@Suite struct ReportRollupsMigrationTests {
    /// sql/fresh/10-12 as of migration 0115 (the previous release's oracle, over staging_events).
    static let previousRelease = [
        #"""
        INSERT INTO rollup_counts AS t (app_id, grain, hour, category, app_version, platform, campaign, variant,
            has_media, delivered, sent, media_requested, opens, dismissals, actions, replies)
        SELECT app_id, CASE GROUPING(quarter, hour, day, app_version, platform, campaign, variant)
                           WHEN 80 THEN 0 WHEN 87 THEN 1 WHEN 97 THEN 4 WHEN 48 THEN 5 ELSE 6 END::smallint,
            coalesce(quarter, hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
            has_media,
            count(*) FILTER (WHERE type = 'delivered'),
            count(*) FILTER (WHERE type = 'sent'),
            count(*) FILTER (WHERE type = 'delivered' AND media_requested),
            count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDefaultActionIdentifier'),
            count(*) FILTER (WHERE type = 'response' AND action_identifier = 'com.apple.UNNotificationDismissActionIdentifier'),
            count(*) FILTER (WHERE type = 'response' AND action_identifier NOT IN
                ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')),
            count(*) FILTER (WHERE type = 'response' AND user_text_length IS NOT NULL AND action_identifier NOT IN
                ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier'))
        FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
                     coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, has_media, type,
                     action_identifier, user_text_length, media_requested
              FROM staging_events) f
        GROUP BY app_id, category, has_media,
            GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour, app_version), (day, app_version, platform, campaign),
                           (quarter, app_version, platform, campaign, variant), (quarter, app_version))
        ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
        ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, has_media) DO UPDATE SET
            delivered = t.delivered + EXCLUDED.delivered, sent = t.sent + EXCLUDED.sent,
            media_requested = t.media_requested + EXCLUDED.media_requested, opens = t.opens + EXCLUDED.opens,
            dismissals = t.dismissals + EXCLUDED.dismissals, actions = t.actions + EXCLUDED.actions,
            replies = t.replies + EXCLUDED.replies
        """#,
        #"""
        INSERT INTO rollup_actions AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, action, n)
        SELECT app_id, CASE GROUPING(quarter, hour, day, app_version, platform, campaign, variant)
                           WHEN 80 THEN 0 WHEN 95 THEN 2 WHEN 111 THEN 3 ELSE 5 END::smallint,
            coalesce(quarter, hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
            action_identifier, count(*)
        FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
                     coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, action_identifier
              FROM staging_events
              WHERE type = 'response' AND action_identifier NOT IN
                  ('com.apple.UNNotificationDefaultActionIdentifier', 'com.apple.UNNotificationDismissActionIdentifier')) f
        GROUP BY app_id, category, action_identifier, GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour), (day),
                           (quarter, app_version, platform, campaign, variant))
        ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9
        ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, action) DO UPDATE SET
            n = t.n + EXCLUDED.n
        """#,
        #"""
        INSERT INTO rollup_histograms AS t (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin, n)
        SELECT app_id, CASE GROUPING(quarter, hour, day, app_version, platform, campaign, variant)
                           WHEN 80 THEN 0 WHEN 95 THEN 2 WHEN 111 THEN 3 ELSE 5 END::smallint,
            coalesce(quarter, hour, day), category, coalesce(app_version, ''), coalesce(platform, ''), coalesce(campaign, ''), coalesce(variant, ''),
            metric, bin, count(*)
        FROM (SELECT app_id, tapwire_quarter_hour(event_time) AS quarter, tapwire_hour(event_time) AS hour, tapwire_utc_day(event_time) AS day, category, app_version, platform,
                     coalesce(campaign, '') AS campaign, coalesce(variant, '') AS variant, m.metric, m.bin
              FROM staging_events
              CROSS JOIN LATERAL (VALUES
                  (1::smallint, CASE WHEN user_text_length IS NOT NULL THEN tapwire_reply_bin(user_text_length) END),
                  (2::smallint, CASE WHEN delivered_at IS NOT NULL THEN tapwire_latency_bin(event_time, delivered_at) END)) m (metric, bin)
              WHERE type = 'response' AND action_identifier <> 'com.apple.UNNotificationDismissActionIdentifier'
                AND m.bin IS NOT NULL
                AND (m.metric = 2 OR action_identifier <> 'com.apple.UNNotificationDefaultActionIdentifier')) f
        GROUP BY app_id, category, metric, bin, GROUPING SETS ((hour, app_version, platform, campaign, variant), (hour), (day),
                           (quarter, app_version, platform, campaign, variant))
        ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
        ON CONFLICT (app_id, grain, hour, category, app_version, platform, campaign, variant, metric, bin) DO UPDATE SET
            n = t.n + EXCLUDED.n
        """#,
    ]

    @Test func thePreviousRollupsMoveIntoTheNewTables() throws {
        let name = try TestPostgres.blankDatabase(prefix: "t_m150")
        let connection = try PostgresConnection(url: try TestPostgres.url(database: name))
        defer { connection.close() }
        try Migrator(through: 115).migrate(connection)
        let appId = try #require(Int64(try connection.query("INSERT INTO apps (name) VALUES ('shop') RETURNING app_id").scalar ?? ""))
        var rng = SeededGenerator(seed: 150)
        let now = Timestamp(iso8601: "2026-11-04T12:07:00Z")!
        // No OS: the previous rollups never kept it, so only then do both sides agree on it.
        let batches = (0..<6).map { i in
            StagedBatch(appId: appId, receivedAt: now, context: DeviceContext(appVersion: ["1.0", "1.1"][i % 2], platform: ["iOS", "watchOS"][i / 3]),
                        events: (0..<400).map { _ in RollupDeltaMergeTests.randomEvent(&rng, around: now) })
        }
        // Today's COPY writes the conversion columns of 0161 and the assignment's of 0201: there for
        // the load, gone before 0150.
        try connection.query("""
            ALTER TABLE events ADD COLUMN conversion_name text, ADD COLUMN conversion_value float8, ADD COLUMN conversion_currency text,
                ADD COLUMN held_out boolean, ADD COLUMN holdout_share float8
            """)
        try BulkLoad.copyEvents(batches, on: connection)
        try connection.query("""
            ALTER TABLE events DROP COLUMN conversion_name, DROP COLUMN conversion_value, DROP COLUMN conversion_currency,
                DROP COLUMN held_out, DROP COLUMN holdout_share
            """)
        // The previous release's rollups of those events: its engagement tables from its oracle,
        // the release and mismatch tables (unchanged since) from today's.
        try connection.transaction { () throws(DatabaseError) in
            try connection.query(OracleSQL.createStaging)
            try connection.query("INSERT INTO staging_events SELECT 0, e.* FROM events e")
            for statement in Self.previousRelease { try connection.query(statement) }
            for statement in OracleSQL.freshRowStatements where ["13", "14", "20"].contains(String(statement.name.split(separator: "/").last?.prefix(2) ?? "")) {
                try connection.query(statement.sql)
            }
        }
        #expect(try connection.query("SELECT count(*) FROM rollup_counts").scalar != "0")
        // The session's staging table has the columns events had then; the oracle makes it again.
        try connection.query("DROP TABLE staging_events")
        try Migrator().migrate(connection)
        #expect(try connection.query("SELECT to_regclass('rollup_counts') IS NULL").scalar == "t", "the previous tables are dropped")
        let migrated = try RollupSnapshot.rows(appId: appId, on: connection)
        #expect(migrated.count > 500)
        let recomputed = try RollupSnapshot.recomputedByOracle(appId: appId, on: connection)
        #expect(recomputed.count == migrated.count)
        let differing = zip(migrated, recomputed).filter { $0 != $1 }.prefix(5)
        #expect(migrated == recomputed, "first rows that differ: \(Array(differing))")
    }
}
