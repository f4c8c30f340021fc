import Foundation
import TapwireStatistics
import Testing
import TapwireCore
import TapwireReport
import TapwireStore
import TapwireTestSupport

/// The rollups must equal a recomputation from the raw events, whatever the batches: duplicates
/// inside a batch, retries of whole batches, concurrent posts, events on many hours and days.
@Suite("Rollups stay exactly consistent with events")
struct RollupConsistencyTests {
    static let categories = ["message", "social_post", "promo", "Message"]
    static let actions = [SystemAction.open, SystemAction.dismiss, "reply", "like", "shop_now"]

    /// One random event, with the fields the rollups key on drawn from small sets, at a time in
    /// [from, from + span) (µs).
    static func randomEvent(_ rng: inout SeededGenerator, from: Timestamp = ReportFixtures.start, span: Int64 = 3 * ReportFixtures.day) -> JSONValue {
        let time = from.adding(microseconds: Int64.random(in: 0..<span, using: &rng))
        let type = ["delivered", "delivered", "response", "sent"][Int.random(in: 0..<4, using: &rng)]
        var extra: [(String, JSONValue)] = [("hasMedia", .bool(Bool.random(using: &rng)))]
        if Bool.random(using: &rng) { extra.append(("campaign", .string(["winter", "spring"][Int.random(in: 0..<2, using: &rng)]))) }
        if Bool.random(using: &rng) { extra.append(("variant", .string(["A", "B"][Int.random(in: 0..<2, using: &rng)]))) }
        if type == "delivered" { extra.append(("mediaRequested", .bool(Bool.random(using: &rng)))) }
        if type == "response" {
            let action = actions[Int.random(in: 0..<actions.count, using: &rng)]
            extra.append(("actionIdentifier", .string(action)))
            if action == "reply" { extra.append(("userTextLength", .int(Int.random(in: 0...700, using: &rng)))) }
            if Int.random(in: 0..<4, using: &rng) > 0 {
                let latency = Int64(exp(Double.random(in: 0...12, using: &rng)) * 1_000_000)
                extra.append(("deliveredAt", .string(time.adding(microseconds: -latency).description)))
            }
        }
        return TestBatch.event(type, id: .v7(at: time, using: &rng), at: time,
                               category: categories[Int.random(in: 0..<categories.count, using: &rng)], extra)
    }

    @Test func rollupsEqualRecomputationAfterRandomBatchesWithDuplicatesAndRetries() throws {
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        let app = try collector.database.createApp()
        var rng = SeededGenerator(seed: 20261202)
        var batches: [[UInt8]] = []
        var posted: [JSONValue] = []
        for _ in 0..<60 {
            var events = (0..<Int.random(in: 1...150, using: &rng)).map { _ in Self.randomEvent(&rng) }
            // Duplicates inside a batch, and events of earlier batches sent again.
            if let repeated = events.randomElement(using: &rng), Bool.random(using: &rng) { events.append(repeated) }
            if !posted.isEmpty, Bool.random(using: &rng) { events.append(posted.randomElement(using: &rng)!) }
            posted += events
            let context: [(String, JSONValue)] = [("appVersion", .string(["1.0", "1.1"][Int.random(in: 0..<2, using: &rng)])),
                                                  ("platform", .string(["iOS", "watchOS"][Int.random(in: 0..<2, using: &rng)]))]
            batches.append(TestBatch.body(events, context: context))
        }
        // Whole-batch retries, posted later, from concurrent clients.
        for _ in 0..<10 { batches.append(batches[Int.random(in: 0..<batches.count, using: &rng)]) }
        let client = collector.client()
        let failures = Mutex<[String]>([])
        let toPost = batches
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for (i, body) in toPost.enumerated() where i % 4 == worker {
                do { _ = try ReportFixtures.post(client, key: app.writeKey.text, body) } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)

        let connection = try collector.database.connect()
        defer { connection.close() }
        // What the collector's background fold does every two seconds, done now.
        try RollupStore().fold(on: connection)
        let stored = Int(try connection.query("SELECT count(*) FROM events WHERE app_id = $1::bigint", [String(app.appId)]).scalar ?? "0") ?? 0
        let uniqueIds = Set(posted.compactMap { $0["eventId"]?.stringValue }).count
        #expect(stored == uniqueIds, "every distinct eventId stored once")

        // 1. Independent of SQL: totals recomputed in Swift from the distinct events posted.
        var firstById: [String: JSONValue] = [:]
        for event in posted { if let id = event["eventId"]?.stringValue, firstById[id] == nil { firstById[id] = event } }
        let unique = Array(firstById.values)
        func grain1(_ column: String) throws -> Int {
            let daily = Int(try connection.query("SELECT coalesce(sum(\(column)), 0) FROM rollup_totals WHERE app_id = $1::bigint AND grain = 2",
                                                 [String(app.appId)]).scalar ?? "0") ?? -1
            let quarters = Int(try connection.query("SELECT coalesce(sum(\(column)), 0) FROM rollup_totals WHERE app_id = $1::bigint AND grain = 0",
                                                    [String(app.appId)]).scalar ?? "0") ?? -2
            return daily == quarters ? daily : -3
        }
        let responses = unique.filter { $0["type"]?.stringValue == "response" }
        #expect(try grain1("delivered") == unique.filter { $0["type"]?.stringValue == "delivered" }.count)
        #expect(try grain1("sent") == unique.filter { $0["type"]?.stringValue == "sent" }.count)
        #expect(try grain1("opens") == responses.filter { $0["actionIdentifier"]?.stringValue == SystemAction.open }.count)
        #expect(try grain1("dismissals") == responses.filter { $0["actionIdentifier"]?.stringValue == SystemAction.dismiss }.count)
        #expect(try grain1("actions") == responses.filter { !SystemAction.isSystem($0["actionIdentifier"]?.stringValue ?? "") }.count)
        #expect(try grain1("replies") == responses.filter { $0["userTextLength"] != nil }.count)
        #expect(try grain1("media_requested") == unique.filter { $0["mediaRequested"]?.boolValue == true }.count)

        // 2. Every grain of every table (and the mismatch usage) equals the SQL recomputation from
        // events (the oracle, sql/fresh/), and so does `rollups rebuild` (the Swift one).
        let incremental = try RollupSnapshot.rows(appId: app.appId, on: connection)
        #expect(incremental.count > 100)
        let oracle = try RollupSnapshot.recomputedByOracle(appId: app.appId, on: connection)
        #expect(oracle.count == incremental.count)
        #expect(oracle == incremental, "rollups differ from the SQL recomputation from events")
        try connection.query("UPDATE rollup_totals SET delivered = delivered + 1 WHERE app_id = $1::bigint", [String(app.appId)])
        try connection.query("UPDATE rollup_strata SET rich_delivered = rich_delivered + 1 WHERE app_id = $1::bigint", [String(app.appId)])
        let range = try #require(try RollupStore().eventHours(appId: app.appId, on: connection))
        try RollupStore().rebuild(appId: app.appId, from: range.from, to: range.to, on: connection)
        #expect(try RollupSnapshot.rows(appId: app.appId, on: connection) == oracle, "rollups rebuild differs from the SQL recomputation")

        // 3. Reports from rollups equal the same report from raw events, in a zone with a
        // half-hour offset and with edges off the hour (both paths of the hybrid read), and in
        // zones at UTC+0 (UTC, London in November), whose whole UTC days are read from the daily
        // strata rows unless the variant matters.
        let from = ReportFixtures.start.adding(microseconds: 5 * ReportFixtures.hour + 17 * 60_000_000)
        let to = ReportFixtures.start.adding(microseconds: 2 * ReportFixtures.day + 7 * ReportFixtures.hour + 1)
        for (zone, filters, groupBy) in [("Asia/Kolkata", ReportFilters(), nil as ReportDimension?),
                                         ("UTC", ReportFilters(platform: "iOS"), .campaign),
                                         ("UTC", ReportFilters(), nil), ("Europe/London", ReportFilters(), .appVersion),
                                         ("UTC", ReportFilters(variant: "A"), .platform), ("UTC", ReportFilters(), .variant),
                                         ("America/St_Johns", ReportFilters(appVersion: "1.1"), .variant)] {
            let fast = try ReportFixtures.report(collector.database, app: app, from: from, to: to, timeZone: zone, filters: filters, groupBy: groupBy)
            let slow = try ReportFixtures.report(collector.database, app: app, from: from, to: to, timeZone: zone, filters: filters,
                                                 groupBy: groupBy, source: .rawEvents)
            #expect(fast.overall.delivered > 0)
            var fastComparable = fast
            fastComparable.source = .rawEvents
            #expect(fastComparable == slow, "rollup and raw reports differ for \(zone)")
        }
    }

    /// The days a local midnight or a range edge cuts: whole quarter hours come from the
    /// quarter-hour rows where they are complete (rollup_quarter_coverage), everything else
    /// (minutes off the quarter hour, quarters before they are complete) from events through
    /// RollupDeltas; every report equals the raw one. A rebuild moves "complete from" back a day
    /// at a time, and a report whose edges are on quarter hours reads no event at all.
    @Test func cutHoursComeFromQuarterHoursWhereCompleteAndFromEventsElsewhere() throws {
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        let app = try collector.database.createApp()
        var rng = SeededGenerator(seed: 20261204)
        let client = collector.client()
        for _ in 0..<30 {
            let events = (0..<120).map { _ in Self.randomEvent(&rng) }
            let context: [(String, JSONValue)] = [("appVersion", .string(["1.0", "1.1"][Int.random(in: 0..<2, using: &rng)])),
                                                  ("platform", .string(["iOS", "watchOS"][Int.random(in: 0..<2, using: &rng)]))]
            _ = try ReportFixtures.post(client, key: app.writeKey.text, TestBatch.body(events, context: context))
        }
        let connection = try collector.database.connect()
        defer { connection.close() }
        try RollupStore().fold(on: connection)
        let start = ReportFixtures.start, minute: Int64 = 60_000_000
        func at(_ minutes: Int64) -> Timestamp { start.adding(microseconds: minutes * minute) }
        // (zone, from, to, filters, --by): local midnights of zones at +05:30, +05:45 and -03:30,
        // quarter hours that are not whole hours, and edges off the quarter hour.
        let onQuarters: [(String, Timestamp, Timestamp, ReportFilters, ReportDimension?)] = [
            ("Asia/Kolkata", at(18 * 60 + 30), at(2 * 1440 + 18 * 60 + 30), ReportFilters(), nil),
            ("Asia/Kathmandu", at(18 * 60 + 15), at(2 * 1440 + 18 * 60 + 15), ReportFilters(platform: "iOS"), .campaign),
            ("America/St_Johns", at(3 * 60 + 30), at(2 * 1440 + 3 * 60 + 30), ReportFilters(), .variant),
            ("UTC", at(5 * 60 + 45), at(2 * 1440 + 7 * 60 + 15), ReportFilters(), .appVersion),
            ("Asia/Kolkata", at(5 * 60 + 45), at(2 * 1440 + 7 * 60 + 15), ReportFilters(variant: "B"), nil),
        ]
        let offQuarters: [(String, Timestamp, Timestamp, ReportFilters, ReportDimension?)] = [
            ("Asia/Kolkata", at(5 * 60 + 17), at(2 * 1440 + 7 * 60 + 1), ReportFilters(), nil),
            ("Asia/Kathmandu", at(18 * 60 + 16), at(2 * 1440 + 18 * 60 + 14), ReportFilters(), .platform),
        ]
        func raw(_ c: (String, Timestamp, Timestamp, ReportFilters, ReportDimension?)) throws -> EngagementReport {
            try ReportFixtures.report(collector.database, app: app, from: c.1, to: c.2, timeZone: c.0, filters: c.3, groupBy: c.4,
                                      source: .rawEvents)
        }
        func compare(_ label: String) throws -> [EngagementReport] {
            var raws: [EngagementReport] = []
            for c in onQuarters + offQuarters {
                var fast = try ReportFixtures.report(collector.database, app: app, from: c.1, to: c.2, timeZone: c.0, filters: c.3, groupBy: c.4)
                let slow = try raw(c)
                #expect(fast.overall.delivered > 0)
                fast.source = .rawEvents
                #expect(fast == slow, "\(label): rollup and raw reports differ for \(c.0) from \(c.1) to \(c.2)")
                raws.append(slow)
            }
            return raws
        }
        func completeFrom() throws -> String? {
            try connection.query("SELECT to_char(complete_from AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM rollup_quarter_coverage WHERE app_id = $1::bigint",
                                 [String(app.appId)]).scalar
        }
        // 1. An app created after migration 0100: the grain is complete throughout.
        #expect(try completeFrom() == nil)
        _ = try compare("complete")

        // 2. As for data stored before the migration: no quarter rows before "complete from"
        // (the middle of the second day). Those quarters come from events.
        let middle = at(1440 + 6 * 60)
        try connection.query("INSERT INTO rollup_quarter_coverage (app_id, complete_from) VALUES ($1::bigint, $2::timestamptz)",
                             [String(app.appId), middle.description])
        for table in ["rollup_totals", "rollup_total_actions", "rollup_total_histograms"] {
            try connection.query("DELETE FROM \(table) WHERE app_id = $1::bigint AND grain = 0 AND bucket < $2::timestamptz",
                                 [String(app.appId), middle.description])
        }
        _ = try compare("grain 5 complete from the middle")

        // 3. A rebuild of the last day only does not join up with "complete from": nothing moves.
        // Of every day, last to first: each moves it back a day, to the first day's start.
        try RollupStore().rebuild(appId: app.appId, from: at(2 * 1440), to: at(3 * 1440), on: connection)
        #expect(try completeFrom() == "2026-11-03T06:00:00Z")
        try RollupStore().rebuild(appId: app.appId, from: start, to: at(3 * 1440), on: connection)
        #expect(try completeFrom() == "2026-11-02T00:00:00Z")
        let raws = try compare("after the rebuild")

        // 4. An unfiltered report with edges on quarter hours reads no event: with the app's events
        // gone, it is still the raw report computed before. A filtered or grouped one reads the
        // events of its range (the rollups keep no dimension), so it sees them gone.
        try connection.query("DELETE FROM events WHERE app_id = $1::bigint", [String(app.appId)])
        var unfiltered = 0
        for (c, slow) in zip(onQuarters, raws) {
            var fast = try ReportFixtures.report(collector.database, app: app, from: c.1, to: c.2, timeZone: c.0, filters: c.3, groupBy: c.4)
            fast.source = .rawEvents
            if c.3.isEmpty && c.4 == nil {
                #expect(fast == slow, "a report on quarter-hour edges read events, \(c.0) from \(c.1) to \(c.2)")
                unfiltered += 1
            } else {
                #expect(fast.overall.delivered == 0, "a filtered report did not read the events of its range")
            }
        }
        #expect(unfiltered == 1)
    }

    @Test func rebuildOfOneAppLeavesOthersAlone() throws {
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        let a = try collector.database.createApp(), b = try collector.database.createApp()
        let client = collector.client()
        for app in [a, b] {
            let events = (0..<20).map { i in
                TestBatch.event("delivered", at: ReportFixtures.start.adding(microseconds: Int64(i) * ReportFixtures.hour))
            }
            _ = try ReportFixtures.post(client, key: app.writeKey.text, TestBatch.body(events))
        }
        let connection = try collector.database.connect()
        defer { connection.close() }
        try RollupStore().fold(on: connection)
        // Damage b's rollups, rebuild a only: b stays damaged, a is right.
        try connection.query("UPDATE rollup_totals SET delivered = delivered + 1000")
        try RollupStore().rebuild(appId: a.appId, from: ReportFixtures.start, to: ReportFixtures.start.adding(microseconds: ReportFixtures.day),
                                  on: connection)
        func total(_ app: CreatedApp) throws -> Int {
            Int(try connection.query("SELECT sum(delivered) FROM rollup_totals WHERE app_id = $1::bigint AND grain = 2",
                                     [String(app.appId)]).scalar ?? "0") ?? -1
        }
        #expect(try total(a) == 20)
        #expect(try total(b) > 1000)
    }
}

import Synchronization
