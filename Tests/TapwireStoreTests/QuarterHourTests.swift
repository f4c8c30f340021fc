import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// The quarter-hour grain (migration 0100): where a report's cut hours are split, which local
/// day each piece lies in, what comes from grain 5 and what from events, and where the grain is
/// complete for data stored before the migration.
@Suite struct QuarterHourTests {
    static func us(_ iso: String) -> Int64 { Timestamp(iso8601: iso)!.microseconds }

    /// sql/queries/report_edge_ranges.sql for app `appId` over [from, to) in `zone`.
    static func edges(_ connection: PostgresConnection, appId: Int64, _ from: String, _ to: String, _ zone: String) throws -> [ReportEdgeRange] {
        try connection.query(EmbeddedSQL.reportEdgeRanges, [String(appId), from, to, zone]).namedRows.map {
            ReportEdgeRange(lo: Int64($0["lo_us"] ?? "") ?? -1, hi: Int64($0["hi_us"] ?? "") ?? -1, fromQuarters: $0["from_quarters"] == "t",
                            day: $0["day"] ?? "")
        }
    }

    static func range(_ lo: String, _ hi: String, _ quarters: Bool, _ day: String) -> ReportEdgeRange {
        ReportEdgeRange(lo: us(lo), hi: us(hi), fromQuarters: quarters, day: day)
    }

    /// Nepal (+05:45): each local midnight is 18:15 UTC, so each cut hour is split there, its
    /// quarters before in one local day and after in the next; with "complete from" set, the
    /// quarters before it come from events. A range edge off the quarter hour leaves its minutes
    /// to events, the rest of its hour to quarters.
    @Test func nepalsMidnightsSplitTheirHoursAtAQuarter() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let app = try db.createApp()
        let from = "2026-11-02T18:15:00Z", to = "2026-11-04T18:15:00Z"
        #expect(try Self.edges(connection, appId: app.appId, from, to, "Asia/Kathmandu") == [
            Self.range("2026-11-02T18:15:00Z", "2026-11-02T19:00:00Z", true, "2026-11-03"),
            Self.range("2026-11-03T18:00:00Z", "2026-11-03T18:15:00Z", true, "2026-11-03"),
            Self.range("2026-11-03T18:15:00Z", "2026-11-03T19:00:00Z", true, "2026-11-04"),
            Self.range("2026-11-04T18:00:00Z", "2026-11-04T18:15:00Z", true, "2026-11-04"),
        ])
        try connection.query("INSERT INTO rollup_quarter_coverage (app_id, complete_from) VALUES ($1::bigint, '2026-11-03T18:30:00Z')",
                             [String(app.appId)])
        #expect(try Self.edges(connection, appId: app.appId, from, to, "Asia/Kathmandu") == [
            Self.range("2026-11-02T18:15:00Z", "2026-11-02T19:00:00Z", false, "2026-11-03"),
            Self.range("2026-11-03T18:00:00Z", "2026-11-03T18:15:00Z", false, "2026-11-03"),
            Self.range("2026-11-03T18:15:00Z", "2026-11-03T18:30:00Z", false, "2026-11-04"),
            Self.range("2026-11-03T18:30:00Z", "2026-11-03T19:00:00Z", true, "2026-11-04"),
            Self.range("2026-11-04T18:00:00Z", "2026-11-04T18:15:00Z", true, "2026-11-04"),
        ])
        // An edge off the quarter hour, in UTC: its minutes from events, the quarters after it from grain 5.
        #expect(try Self.edges(connection, appId: app.appId, "2026-11-05T10:17:00Z", "2026-11-05T12:00:00Z", "UTC") == [
            Self.range("2026-11-05T10:17:00Z", "2026-11-05T10:30:00Z", false, "2026-11-05"),
            Self.range("2026-11-05T10:30:00Z", "2026-11-05T11:00:00Z", true, "2026-11-05"),
        ])
    }

    /// St John's moves from -03:30 to -02:30 on 2026-03-08: the midnight that starts the 7th is
    /// 03:30 UTC, the one that ends the 8th 02:30 UTC, and each cut hour's quarters carry the
    /// local day they are in.
    @Test func aDaylightSavingChangeMovesTheCutByAnHour() throws {
        let db = try TestDatabase.create()
        let connection = try db.connect()
        defer { connection.close() }
        let app = try db.createApp()
        #expect(try Self.edges(connection, appId: app.appId, "2026-03-07T03:30:00Z", "2026-03-09T02:30:00Z", "America/St_Johns") == [
            Self.range("2026-03-07T03:30:00Z", "2026-03-07T04:00:00Z", true, "2026-03-07"),
            Self.range("2026-03-08T03:00:00Z", "2026-03-08T03:30:00Z", true, "2026-03-07"),
            Self.range("2026-03-08T03:30:00Z", "2026-03-08T04:00:00Z", true, "2026-03-08"),
            Self.range("2026-03-09T02:00:00Z", "2026-03-09T02:30:00Z", true, "2026-03-08"),
        ])
    }

    /// Migration 0100 on a database with data: an app with events (one received with a time
    /// ahead of the clock) gets "complete from" at the quarter hour after its latest event and
    /// not before now; an app created afterwards has no row (complete throughout).
    @Test func theMigrationSetsCompleteFromPastEveryStoredEvent() throws {
        let name = try TestPostgres.blankDatabase(prefix: "t_quarter")
        let connection = try PostgresConnection(url: try TestPostgres.url(database: name))
        defer { connection.close() }
        try Migrator(through: 90).migrate(connection)
        let old = try connection.query("INSERT INTO apps (name) VALUES ('before') RETURNING app_id").scalar ?? ""
        let idle = try connection.query("INSERT INTO apps (name) VALUES ('idle') RETURNING app_id").scalar ?? ""
        try connection.query("SELECT tapwire_ensure_event_partitions(current_date - 1, current_date + 2)")
        try connection.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category, app_version, platform)
            SELECT $1::bigint, t, gen_random_uuid(), 'delivered', t, now(), 'message', '1.0', 'iOS'
            FROM unnest(ARRAY[now() - interval '3 hours', now() + interval '20 hours 7 minutes']) t
            """, [old])
        let before = try connection.query("SELECT clock_timestamp()").scalar ?? ""
        try Migrator().migrate(connection)
        // The latest event's quarter hour, and the one after; for the idle app, a quarter hour
        // after the migration started and not later than the one after now.
        let rows = try connection.query("""
            SELECT a.name,
                   c.complete_from = (SELECT tapwire_quarter_hour(max(event_time)) + interval '15 minutes' FROM events WHERE app_id = a.app_id),
                   c.complete_from > $1::timestamptz AND c.complete_from <= tapwire_quarter_hour(clock_timestamp()) + interval '15 minutes'
            FROM apps a JOIN rollup_quarter_coverage c USING (app_id) ORDER BY a.name
            """, [before]).rows.map { $0.map { $0 ?? "NULL" } }
        #expect(rows == [["before", "t", "f"], ["idle", "NULL", "t"]])
        _ = idle
        let created = try connection.query("INSERT INTO apps (name) VALUES ('after') RETURNING app_id").scalar ?? ""
        #expect(try connection.query("SELECT count(*) FROM rollup_quarter_coverage WHERE app_id = $1::bigint", [created]).scalar == "0")
    }
}
