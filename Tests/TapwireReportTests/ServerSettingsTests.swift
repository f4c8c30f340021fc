import Foundation
import TapwireStatistics
import Testing
import TapwireCore
import TapwireReport
@testable import TapwireStore
import TapwireTestSupport
import TapwireRollupOracle

/// Tapwire sets no session setting (a transaction pooler such as PgBouncer refuses the startup
/// `options` and would mix sessions anyway), so a connection runs with the server's own
/// TimeZone and DateStyle. Reports, mismatch findings, the rollups the commits and the fold
/// write, and a rebuild must not depend on them: the same events give byte-identical results on
/// a database whose sessions run in UTC/ISO, in Asia/Kolkata (a half-hour offset) with
/// `DateStyle = 'SQL, DMY'` (zone abbreviations, day first), and in America/New_York with
/// German dates across the end of its daylight saving time (2026-11-01, a 25-hour day).
@Suite struct ServerSettingsTests {
    /// Server defaults of each database, as `ALTER DATABASE … SET` gives them to new sessions.
    static let settings: [(timeZone: String, dateStyle: String)] = [
        ("UTC", "ISO, MDY"), ("Asia/Kolkata", "SQL, DMY"), ("America/New_York", "German, DMY"),
    ]
    static let start = Timestamp(iso8601: "2026-10-30T00:00:00Z")!
    static let day: Int64 = 86_400_000_000

    /// The same events, every time: five days over the US change of time, every hour.
    static func batches(appId: Int64) -> [StagedBatch] {
        var rng = SeededGenerator(seed: 2026_11_01)
        let categories = ["message", "promo", "Message"]
        let actions = [SystemAction.open, SystemAction.dismiss, "reply", "like", "unknown_button"]
        var batches: [StagedBatch] = []
        for b in 0..<40 {
            let context = DeviceContext(appVersion: ["1.0", "1.1"][b % 2], platform: ["iOS", "watchOS"][(b / 2) % 2])
            let events = (0..<60).map { _ -> Event in
                let time = start.adding(microseconds: Int64.random(in: 0..<(5 * day), using: &rng))
                let type: EventType = [.delivered, .delivered, .response, .sent][Int.random(in: 0..<4, using: &rng)]
                let action = type == .response ? actions[Int.random(in: 0..<actions.count, using: &rng)] : nil
                return Event(eventId: .v7(at: time, using: &rng), type: type, deviceTime: time, eventTime: time,
                             category: categories[Int.random(in: 0..<categories.count, using: &rng)], actionIdentifier: action,
                             userTextLength: action == "reply" ? Int32.random(in: 0...600, using: &rng) : nil,
                             hasMedia: Bool.random(using: &rng), mediaRequested: type == .delivered ? Bool.random(using: &rng) : nil,
                             categoryRegistered: Bool.random(using: &rng), campaign: Bool.random(using: &rng) ? "winter" : nil,
                             variant: Bool.random(using: &rng) ? "B" : nil,
                             deliveredAt: action != nil ? time.adding(microseconds: -Int64.random(in: 1...90_000_000, using: &rng)) : nil)
            }
            batches.append(StagedBatch(appId: appId, receivedAt: start.adding(microseconds: Int64(b) * 60_000_000), context: context,
                                       events: events))
        }
        return batches
    }

    static let manifest = """
        {"appVersion": "1.0", "categories": [{"identifier": "message", "actions": [{"identifier": "reply", "textInput": true},
         {"identifier": "like"}]}, {"identifier": "promo", "actions": [{"identifier": "like"}]}]}
        """

    /// Everything a database gives for the events: reports in three zones and every format,
    /// date ranges and instant ranges (one ends an hour after a whole UTC day that New York's
    /// 25-hour day overlaps), a grouped and a filtered
    /// one, the mismatch findings, the rollup rows; then the same after a rebuild.
    static func outputs(_ db: TestDatabase) throws -> [String] {
        let connection = try db.connect()
        defer { connection.close() }
        let app = try AppStore().createApp(named: "same-everywhere", on: connection)
        _ = try ManifestStore().store(try ManifestDecoder().decode(Array(manifest.utf8)), appId: app.appId, on: connection)
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        for batch in batches(appId: app.appId) { _ = try writer.commit([batch]) }

        var out: [String] = []
        func reports() throws {
            let service = EngagementReportService()
            let requests: [ReportRequest] = [
                ReportRequest(from: "2026-10-30", to: "2026-11-03", timeZone: "UTC"),
                ReportRequest(from: "2026-10-31", to: "2026-11-02", timeZone: "Asia/Kolkata", groupBy: .platform),
                ReportRequest(from: "2026-10-31", to: "2026-11-02", timeZone: "America/New_York"),
                // Ends in the first hour of 2 November (UTC): 1 November is a whole UTC day, read
                // as one daily row, though in New York a calendar day from its start lasts 25 hours.
                ReportRequest(from: "2026-10-30T03:00:00Z", to: "2026-11-02T00:30:00Z", timeZone: "America/New_York"),
                ReportRequest(from: "2026-10-30T00:30:00Z", to: "2026-11-02T18:30:00Z", timeZone: "UTC",
                              filters: ReportFilters(appVersion: "1.1")),
            ]
            for request in requests {
                let report = try service.report(appId: app.appId, appName: app.name, request: request, on: connection,
                                                now: Timestamp(microseconds: 0))
                for format in ReportOutputFormat.allCases { out.append(format.render(report)) }
            }
            let mismatches = try MismatchStore().report(appId: app.appId, appName: app.name, since: start,
                                                        until: start.adding(microseconds: 5 * day), on: connection)
            out.append(mismatches.json.serialized())
            out.append(mismatches.table)
            // The stored rows themselves, read in a session of fixed settings: what was written.
            try connection.transaction { () throws(DatabaseError) in
                try connection.query("SET LOCAL TimeZone = 'UTC'")
                try connection.query("SET LOCAL DateStyle = 'ISO, YMD'")
                out.append(try connection.query(RollupSnapshot.sql, [String(app.appId)]).rows
                    .map { $0.map { $0 ?? "NULL" }.joined(separator: "|") }.joined(separator: "\n"))
            }
        }
        try reports()
        let rebuilt = try RollupStore().rebuild(appId: app.appId, from: start, to: start.adding(microseconds: 5 * day), on: connection)
        out.append(rebuilt.map { "\($0.from) \($0.to) \($0.eventsRecomputed)" }.joined(separator: "\n"))
        try reports()
        // And the independent SQL recomputation agrees with what the commits and the rebuild wrote.
        let snapshot = out[out.count - 1]
        try RollupOracle.recompute(appId: app.appId, from: start, to: start.adding(microseconds: 5 * day), on: connection)
        try connection.transaction { () throws(DatabaseError) in
            try connection.query("SET LOCAL TimeZone = 'UTC'")
            try connection.query("SET LOCAL DateStyle = 'ISO, YMD'")
            let oracle = try connection.query(RollupSnapshot.sql, [String(app.appId)]).rows
                .map { $0.map { $0 ?? "NULL" }.joined(separator: "|") }.joined(separator: "\n")
            #expect(oracle == snapshot, "the SQL oracle disagrees with the rollups")
        }
        return out
    }

    @Test func reportsRollupsAndRebuildsAreTheSameWhateverTheServersTimeZoneAndDateStyle() throws {
        var results: [[String]] = []
        for (timeZone, dateStyle) in Self.settings {
            let db = try TestDatabase.create()
            let admin = try PostgresConnection(url: try TestPostgres.serverURL())
            try admin.query("ALTER DATABASE \(db.name) SET TimeZone = '\(timeZone)'")
            try admin.query("ALTER DATABASE \(db.name) SET DateStyle = '\(dateStyle)'")
            admin.close()
            // The setting really is what a Tapwire connection gets.
            #expect(try db.query("SHOW TimeZone").scalar == timeZone)
            results.append(try Self.outputs(db))
        }
        let reference = results[0]
        #expect(reference.count > 40)
        #expect(reference.contains { $0.contains("\"delivered\"") })
        for (i, result) in results.enumerated().dropFirst() {
            #expect(result.count == reference.count)
            for (index, (got, expected)) in zip(result, reference).enumerated() where got != expected {
                let line = zip(got.split(separator: "\n"), expected.split(separator: "\n")).first { $0 != $1 }
                Issue.record("output \(index) differs with TimeZone \(Self.settings[i].timeZone), DateStyle \(Self.settings[i].dateStyle): \(line.map { "\($0.0)\n  vs \($0.1)" } ?? "lengths differ")")
            }
        }
    }

    /// The migrations were written for sessions in UTC with ISO dates (0001 quotes partition
    /// bounds as text): run on a server with other defaults, they still make partitions that
    /// start at UTC midnights.
    @Test func migrationsMakeUTCPartitionsWhateverTheServersSettings() throws {
        let name = "t_blank_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        let admin = try PostgresConnection(url: try TestPostgres.serverURL())
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(name)")
        try admin.query("ALTER DATABASE \(name) SET TimeZone = 'Asia/Kolkata'")
        try admin.query("ALTER DATABASE \(name) SET DateStyle = 'SQL, DMY'")
        let connection = try PostgresConnection(url: try TestPostgres.url(database: name))
        defer { connection.close() }
        #expect(try Migrator().migrate(connection).count == EmbeddedSQL.migrations.count)
        let partitions = try connection.query("""
            SELECT count(*), count(*) FILTER (WHERE range_start = tapwire_utc_day(range_start) AND range_end = range_start + interval '24 hours')
            FROM tapwire_event_partitions()
            """).rows.first
        #expect(partitions?[0] == "5")
        #expect(partitions?[1] == partitions?[0], "partitions that do not span a UTC day")
    }
}
