import TapwireCore
import TapwireReport
import TapwireStatistics
import TapwireStore
import TapwireTestSupport
import Testing

/// Identifiers that differ in their bytes but are canonically equivalent ("café" composed,
/// U+00E9, and decomposed, e + U+0301) are two identifiers on the device (NSString compares
/// UTF-16 code units literally) and two groups in SQL: every report and finding keeps them apart
/// as the oracle does (docs/reports.md, "Texts compared by their bytes").
@Suite("Look-alike identifiers stay apart")
struct LookAlikeIdentifierTests {
    static let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
    static let replyComposed = "r\u{E9}ply", replyDecomposed = "re\u{301}ply"
    static let campaignComposed = "\u{C5}", campaignDecomposed = "A\u{30A}"
    static let versionComposed = "2.0-b\u{E9}ta", versionDecomposed = "2.0-be\u{301}ta"
    static let start = Timestamp(iso8601: "2026-11-02T00:00:00Z")!

    /// The composed category: 3 delivered and replies in both forms of one action (1 composed, 2
    /// decomposed), in the composed campaign and app version; the decomposed one: 2 delivered in
    /// the decomposed campaign and version. Version 1.0, whose manifest registers only the
    /// composed forms, sends a decomposed category and a decomposed action.
    static func load(_ db: TestDatabase) throws -> CreatedApp {
        let app = try db.createApp()
        let connection = try db.connect()
        defer { connection.close() }
        let manifest = """
            {"appVersion": "1.0", "categories": [{"identifier": "\(composed)", "actions": [{"identifier": "\(replyComposed)"}]},
             {"identifier": "message", "actions": [{"identifier": "\(replyComposed)"}]}]}
            """
        _ = try ManifestStore().store(try ManifestDecoder().decode(Array(manifest.utf8)), appId: app.appId, on: connection)
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        var rng = SeededGenerator(seed: 35)
        var minute: Int64 = 0
        func event(_ type: EventType, _ category: String, action: String? = nil, campaign: String?) -> Event {
            minute += 7
            let time = start.adding(microseconds: (3 * 60 + minute) * 60_000_000)
            return Event(eventId: .v7(at: time, using: &rng), type: type, deviceTime: time, eventTime: time, category: category,
                         actionIdentifier: action, userTextLength: nil, hasMedia: minute % 2 == 0,
                         mediaRequested: type == .delivered ? false : nil, categoryRegistered: true, campaign: campaign,
                         variant: nil, deliveredAt: nil)
        }
        let composedEvents = (0..<3).map { _ in event(.delivered, composed, campaign: campaignComposed) }
            + [event(.response, composed, action: replyComposed, campaign: campaignComposed)]
            + (0..<2).map { _ in event(.response, composed, action: replyDecomposed, campaign: campaignComposed) }
        let decomposedEvents = (0..<2).map { _ in event(.delivered, decomposed, campaign: campaignDecomposed) }
        let v1 = [event(.delivered, decomposed, campaign: nil), event(.delivered, "message", campaign: nil),
                  event(.response, "message", action: replyDecomposed, campaign: nil)]
        for (version, events) in [(versionComposed, composedEvents), (versionDecomposed, decomposedEvents), ("1.0", v1)] {
            _ = try writer.commit([StagedBatch(appId: app.appId, receivedAt: start.adding(microseconds: 6 * ReportFixtures.hour),
                                               context: DeviceContext(appVersion: version, platform: "iOS"), events: events)])
        }
        #expect(try RollupStore().fold(on: connection) > 0)
        return app
    }

    /// What SQL counts per byte string of `column` for events of `type` (the oracle's grouping).
    static func sqlCounts(_ db: TestDatabase, app: CreatedApp, _ column: String, type: String) throws -> [String: Int] {
        let rows = try db.query("SELECT \(column), count(*) FROM events WHERE app_id = $1::bigint AND type = '\(type)' AND \(column) IS NOT NULL GROUP BY 1",
                                [String(app.appId)]).rows
        // Keyed by the UTF-8 bytes spelled out, so that the dictionary cannot merge them either.
        return Dictionary(uniqueKeysWithValues: rows.map { (Self.bytes($0[0]!), Int($0[1]!)!) })
    }

    static func bytes(_ text: String) -> String { text.utf8.map { String($0, radix: 16) }.joined(separator: " ") }

    @Test func reportsShowLookAlikeCategoriesActionsCampaignsAndVersionsApart() throws {
        let db = try TestDatabase.create()
        let app = try Self.load(db)
        let delivered = try Self.sqlCounts(db, app: app, "category", type: "delivered")
        #expect(delivered == [Self.bytes(Self.composed): 3, Self.bytes(Self.decomposed): 3, Self.bytes("message"): 1])
        let connection = try db.connect()
        defer { connection.close() }
        for source in [ReportSource.rollups, .rawEvents] {
            let request = ReportRequest(from: "2026-11-02", to: "2026-11-02", timeZone: "UTC", source: source)
            let report = try EngagementReportService().report(appId: app.appId, appName: app.name, request: request, on: connection,
                                                              now: Timestamp(microseconds: 0))
            // JSON as a user reads it: one entry per byte string, with the oracle's counts.
            let json = try #require(JSONReportRenderer().json(report)["categories"]?.arrayValue)
            #expect(json.count == report.categories.count)
            var shown: [String: Int] = [:]
            for (entry, category) in zip(json, report.categories) {
                let name = try #require(entry["category"]?.stringValue)
                #expect(Self.bytes(name) == category.category.map(Self.bytes))
                #expect(shown[Self.bytes(name)] == nil, "\(source): \(Self.bytes(name)) shown twice")
                shown[Self.bytes(name)] = category.delivered
            }
            #expect(shown == delivered, "\(source)")
            let cafe = try #require(report.categories.first { $0.category.map { Self.bytes($0) } == Self.bytes(Self.composed) })
            let actions: [String: Int] = Dictionary(uniqueKeysWithValues: cafe.actions.map { (Self.bytes($0.identifier), $0.count) })
            #expect(actions == [Self.bytes(Self.replyComposed): 1, Self.bytes(Self.replyDecomposed): 2], "\(source)")

            let expectations: [(ReportDimension, [(String, Int)])] = [
                (.campaign, [(Self.campaignComposed, 3), (Self.campaignDecomposed, 2)]),
                (.appVersion, [(Self.versionComposed, 3), (Self.versionDecomposed, 2), ("1.0", 2)]),
            ]
            for (dimension, expected) in expectations {
                var grouped = request
                grouped.groupBy = dimension
                let report = try EngagementReportService().report(appId: app.appId, appName: app.name, request: grouped, on: connection,
                                                                  now: Timestamp(microseconds: 0))
                let groups = report.groups.map { Self.bytes($0.value) }
                #expect(Set(groups).count == groups.count, "\(source) by \(dimension): a group shown twice")
                let byGroup: [String: Int] = Dictionary(report.groups.map { group in
                    (Self.bytes(group.value), group.categories.reduce(0) { $0 + $1.delivered })
                }, uniquingKeysWith: +)
                for (value, count) in expected { #expect(byGroup[Self.bytes(value)] == count, "\(source) by \(dimension): \(value)") }
            }
        }
    }

    /// A range that cuts quarter hours: its edges are read from events and merged into the rows
    /// read (`PostgresReportReader.apply`), which keep the two forms apart as the raw report does.
    @Test func rangeEdgesKeepLookAlikesApart() throws {
        let db = try TestDatabase.create()
        let app = try Self.load(db)
        let connection = try db.connect()
        defer { connection.close() }
        func report(_ source: ReportSource) throws -> EngagementReport {
            let request = ReportRequest(from: "2026-11-02T03:05:00Z", to: "2026-11-02T04:20:30Z", timeZone: "UTC", source: source)
            return try EngagementReportService().report(appId: app.appId, appName: app.name, request: request, on: connection,
                                                        now: Timestamp(microseconds: 0))
        }
        var fast = try report(.rollups)
        let slow = try report(.rawEvents)
        #expect(slow.categories.count == 3)
        fast.source = .rawEvents
        #expect(fast == slow, "the edges' merge differs from the raw report")
        #expect(Set(fast.categories.compactMap { $0.category.map(Self.bytes) }).count == 3)
    }

    /// The device does not find a category registered in another normal form: events naming
    /// the decomposed form against a manifest of the composed one are a mismatch, and a
    /// decomposed action of a registered category is an unregistered action (docs/mismatches.md).
    @Test func aManifestInAnotherNormalFormDoesNotRegister() throws {
        let db = try TestDatabase.create()
        let app = try Self.load(db)
        let connection = try db.connect()
        defer { connection.close() }
        let report = try MismatchStore().report(appId: app.appId, appName: app.name, since: Self.start,
                                                until: Self.start.adding(microseconds: ReportFixtures.day), on: connection)
        let v1 = report.findings.filter { $0.appVersions.contains("1.0") }
        let category = v1.filter { Self.bytes($0.category) == Self.bytes(Self.decomposed) && $0.action == nil }
        #expect(category.map(\.kind).contains { [.unknownCategory, .nearMiss].contains($0) }, "\(v1.map { "\($0.kind) \($0.category)" })")
        #expect(category.first { $0.kind != .deadCategory }?.count == 1)
        #expect(v1.contains { $0.kind == .unregisteredAction && $0.category == "message" && $0.action.map(Self.bytes) == Self.bytes(Self.replyDecomposed) })
    }
}
