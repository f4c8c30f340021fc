import Foundation
import Testing
import TapwireCore
import TapwireReport
import TapwireStatistics
import TapwireStore
import TapwireTestSupport
import TapwireRollupOracle

/// Conversions are attribution's (docs/outcomes.md): two apps get the same engagement events,
/// one of them conversions besides, some carrying a category, media, a campaign and a variant
/// (so a read of `events` that does not leave them out would count them). Every rollup row, the
/// SQL oracle's recomputation, `rollups rebuild` and every report (from rollups and from raw
/// events) of the two apps are the same.
@Suite struct ConversionsLeaveEngagementTests {
    static let devices = ["install-a", "install-b", "install-c"]

    static func conversion(_ rng: inout SeededGenerator) -> JSONValue {
        let time = ReportFixtures.start.adding(microseconds: Int64.random(in: 0..<(3 * ReportFixtures.day), using: &rng))
        var extra: [(String, JSONValue)] = [("name", .string(["purchase", "signup"][Int.random(in: 0..<2, using: &rng)]))]
        if Bool.random(using: &rng) { extra += [("value", .double(Double(Int.random(in: 1...9_999, using: &rng)) / 100)), ("currency", "EUR")] }
        if Bool.random(using: &rng) { extra.append(("hasMedia", true)) }
        if Bool.random(using: &rng) { extra.append(("campaign", "winter")) }
        if Bool.random(using: &rng) { extra.append(("variant", "A")) }
        if Bool.random(using: &rng) { extra.append(("categoryRegistered", .bool(Bool.random(using: &rng)))) }
        if Bool.random(using: &rng) { extra.append(("deviceId", .string(devices[Int.random(in: 0..<devices.count, using: &rng)]))) }
        // Most carry no category; some carry one the engagement events use.
        let category = Int.random(in: 0..<3, using: &rng) == 0 ? RollupConsistencyTests.categories[Int.random(in: 0..<4, using: &rng)] : ""
        var members: [(String, JSONValue)] = [("eventId", .string(EventID.v7(at: time, using: &rng).description)), ("type", "conversion"),
                                              ("timestamp", .string(time.description))]
        if !category.isEmpty { members.append(("category", .string(category))) }
        return .object(members + extra)
    }

    @Test func postingConversionsChangesNoEngagementFigure() throws {
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        let plain = try collector.database.createApp("engagement-only")
        let converting = try collector.database.createApp("with-conversions")
        var rng = SeededGenerator(seed: 20261205)
        var engagement: [[UInt8]] = []
        var conversions: [[UInt8]] = []
        for i in 0..<24 {
            let context: [(String, JSONValue)] = [("appVersion", .string(["1.0", "1.1"][i % 2])), ("platform", .string(["iOS", "watchOS"][(i / 2) % 2])),
                                                  ("osVersion", "18.1"), ("deviceId", .string(Self.devices[i % Self.devices.count]))]
            // No sentAt: no clock correction, so both apps store the same event times.
            engagement.append(TestBatch.body((0..<Int.random(in: 20...80, using: &rng)).map { _ in RollupConsistencyTests.randomEvent(&rng) },
                                             sentAt: nil, context: context))
            conversions.append(TestBatch.body((0..<Int.random(in: 5...30, using: &rng)).map { _ in Self.conversion(&rng) }, sentAt: nil, context: context))
        }
        let client = collector.client()
        for body in engagement {
            _ = try ReportFixtures.post(client, key: plain.writeKey.text, body)
        }
        // Interleaved with the engagement batches, and some conversion batches retried.
        for (i, body) in engagement.enumerated() {
            _ = try ReportFixtures.post(client, key: converting.writeKey.text, conversions[i])
            _ = try ReportFixtures.post(client, key: converting.writeKey.text, body)
            if i % 5 == 0 { _ = try ReportFixtures.post(client, key: converting.writeKey.text, conversions[i]) }
        }

        let connection = try collector.database.connect()
        defer { connection.close() }
        try RollupStore().fold(on: connection)
        let stored = try connection.query("SELECT count(*) FROM events WHERE app_id = $1::bigint AND type = 'conversion'", [String(converting.appId)])
        #expect(Int(stored.scalar ?? "0")! > 200)
        // Attribution ran: the conversions were credited, some directly, some as influenced.
        let kinds = try connection.query("SELECT count(*) FILTER (WHERE kind = 1) > 0, count(*) FILTER (WHERE kind = 2) > 0 FROM conversion_credits WHERE app_id = $1::bigint",
                                         [String(converting.appId)])
        #expect(kinds.rows.first == ["t", "t"])

        let expected = try RollupSnapshot.rows(appId: plain.appId, on: connection)
        #expect(expected.count > 100)
        #expect(try RollupSnapshot.rows(appId: converting.appId, on: connection) == expected, "the commits' rollups counted a conversion")
        let range = try #require(try RollupStore().eventHours(appId: converting.appId, on: connection))
        try RollupOracle.recompute(appId: converting.appId, from: range.from, to: range.to, on: connection)
        #expect(try RollupSnapshot.rows(appId: converting.appId, on: connection) == expected, "the SQL oracle counted a conversion")
        try RollupStore().rebuild(appId: converting.appId, from: range.from, to: range.to, on: connection)
        #expect(try RollupSnapshot.rows(appId: converting.appId, on: connection) == expected, "rollups rebuild counted a conversion")
        // The oracle of the app without conversions agrees too, so the comparison is the same.
        try RollupOracle.recompute(appId: plain.appId, from: range.from, to: range.to, on: connection)
        #expect(try RollupSnapshot.rows(appId: plain.appId, on: connection) == expected)
        // The soak's mismatch check reads events directly: no row differs.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let usageDiff = try String(contentsOf: root.appendingPathComponent("sql/soak/mismatch_usage_diff.sql"), encoding: .utf8)
        for app in [plain, converting] {
            #expect(try connection.query(usageDiff, [String(app.appId)]).rows.first == ["0", "0"])
        }

        let from = ReportFixtures.start.adding(microseconds: 5 * ReportFixtures.hour + 17 * 60_000_000)
        let to = ReportFixtures.start.adding(microseconds: 2 * ReportFixtures.day + 7 * ReportFixtures.hour + 1)
        for (zone, filters, groupBy) in [("Asia/Kolkata", ReportFilters(), nil as ReportDimension?), ("UTC", ReportFilters(platform: "iOS"), .campaign),
                                         ("UTC", ReportFilters(), .variant), ("Europe/London", ReportFilters(), .appVersion),
                                         ("UTC", ReportFilters(variant: "A"), .os)] {
            for source in [ReportSource.rollups, .rawEvents] {
                let without = try ReportFixtures.report(collector.database, app: plain, from: from, to: to, timeZone: zone, filters: filters,
                                                        groupBy: groupBy, source: source)
                var with = try ReportFixtures.report(collector.database, app: converting, from: from, to: to, timeZone: zone, filters: filters,
                                                     groupBy: groupBy, source: source)
                #expect(without.overall.delivered > 0)
                // The converting app's report shows its conversions; the rest must be engagement's alone.
                if filters == ReportFilters(), groupBy == nil { #expect(!with.conversions.isEmpty) }
                with.app = without.app
                with = Self.engagementOnly(with)
                #expect(with == Self.engagementOnly(without), "the \(source) report for \(zone) by \(groupBy.map { "\($0)" } ?? "nothing") counted a conversion")
            }
        }
    }

    /// The report without its conversion figures (which only the converting app has): what
    /// engagement reports.
    static func engagementOnly(_ report: EngagementReport) -> EngagementReport {
        func strip(_ category: CategoryEngagement) -> CategoryEngagement {
            var category = category
            category.conversions = []
            category.directConversionsByAction = [:]
            category.conversionUplift = []
            return category
        }
        var report = report
        report.conversions = []
        report.conversionsOmitted = nil
        report.categories = report.categories.map(strip)
        report.overall = strip(report.overall)
        report.groups = report.groups.map { group in
            var group = group
            group.categories = group.categories.map(strip)
            group.overall = strip(group.overall)
            return group
        }
        return report
    }
}
