import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// A day of telemetry for one app: rich and text-only deliveries with opens, replies and
/// dismissals, and manifests where `message` has customDismissAction and `social_post` not.
struct SampleApp {
    let collector: TestCollector
    let app: CreatedApp
    var from: Timestamp { ReportFixtures.start }
    var to: Timestamp { ReportFixtures.start.adding(microseconds: 2 * ReportFixtures.day) }

    init(dismissOption: Bool = true) throws {
        collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        app = try collector.database.createApp()
        let client = collector.client()
        try ReportFixtures.postManifest(client, key: app.writeKey.text, version: "1.0", categories: [
            ["identifier": "message", "options": .array(dismissOption ? ["customDismissAction"] : []),
             "actions": [["identifier": "reply", "textInput": true]]],
            ["identifier": "social_post", "options": [], "actions": [["identifier": "like"]]],
        ])
        var rng = SeededGenerator(seed: 7)
        var events: [JSONValue] = []
        for i in 0..<400 {
            let category = i % 2 == 0 ? "message" : "social_post"
            let rich = i % 4 < 2
            let time = ReportFixtures.start.adding(microseconds: Int64(i) * 200_000_000 + 3_600_000_000)
            events.append(TestBatch.event("delivered", id: .v7(at: time, using: &rng), at: time, category: category,
                                          [("hasMedia", .bool(rich)), ("mediaRequested", .bool(rich || i % 10 == 1))]))
            let responded = time.adding(seconds: 42)
            var response: [(String, JSONValue)] = [("hasMedia", .bool(rich)), ("deliveredAt", .string(time.description))]
            if i % 5 == 0 || (rich && i % 5 == 1) {
                response.append(("actionIdentifier", .string(SystemAction.open)))
            } else if category == "message", i % 5 == 2 {
                response += [("actionIdentifier", "reply"), ("userTextLength", .int(10 + i % 7))]
            } else if category == "message", i % 5 == 3, dismissOption {
                response.append(("actionIdentifier", .string(SystemAction.dismiss)))
            } else {
                continue
            }
            events.append(TestBatch.event("response", id: .v7(at: responded, using: &rng), at: responded, category: category, response))
        }
        for chunk in stride(from: 0, to: events.count, by: 200) {
            _ = try ReportFixtures.post(client, key: app.writeKey.text, TestBatch.body(Array(events[chunk..<min(events.count, chunk + 200)])))
        }
    }
}

@Suite("Report HTTP endpoints")
struct ReportEndpointTests {
    static let paths = [
        "/v1/reports/engagement?from=2026-11-02&to=2026-11-03",
        "/v1/reports/engagement?from=2026-11-02&to=2026-11-03&format=csv",
        "/v1/reports/engagement?from=2026-11-02&to=2026-11-03&format=html",
        "/v1/reports/engagement?from=2026-11-02&to=2026-11-03&format=md&tz=Europe/Bucharest&by=platform",
        "/report?from=2026-11-02&to=2026-11-03",
    ]

    @Test func readKeyWorksAndWriteKeyIsRefusedOnEveryReportEndpoint() throws {
        let sample = try SampleApp()
        defer { sample.collector.stop() }
        let client = sample.collector.client()
        let other = try sample.collector.database.createApp()
        for path in Self.paths {
            let ok = try client.get(path, key: sample.app.readKey.text)
            #expect(ok.status == 200, "\(path) with the read key: \(ok.status) \(ok.text.prefix(200))")
            #expect(ok.text.contains("message"))
            let write = try client.get(path, key: sample.app.writeKey.text)
            #expect(write.status == 403, "\(path) with the write key must be refused")
            #expect(write.errorCode == "forbidden")
            let none = try client.get(path)
            #expect(none.status == 401)
            // A read key of another app may not name this app.
            let foreign = try client.get(path + "&app=\(sample.app.name)", key: other.readKey.text)
            #expect(foreign.status == 403)
        }
        let json = try #require(try client.get(Self.paths[0], key: sample.app.readKey.text).json)
        #expect(json["schemaVersion"]?.numberValue?.integer == 3)
        #expect(json["app"]?.stringValue == sample.app.name)
        let csv = try client.get(Self.paths[1], key: sample.app.readKey.text)
        #expect(csv.headers["content-type"]?.hasPrefix("text/csv") == true)
        #expect(csv.text.hasPrefix(CSVReportRenderer.header.joined(separator: ",")))
        let html = try client.get("/report?since=7d", key: sample.app.readKey.text)
        #expect(html.headers["content-type"]?.hasPrefix("text/html") == true)
    }

    /// `target-difference` is in percentage points, as the CLI flag; the JSON says it as a fraction.
    @Test func targetDifferenceParameter() throws {
        let sample = try SampleApp()
        defer { sample.collector.stop() }
        let client = sample.collector.client()
        let path = "/v1/reports/engagement?from=2026-11-02&to=2026-11-03&target-difference=3"
        let json = try #require(try client.get(path, key: sample.app.readKey.text).json)
        #expect(json["targetDifference"]?.numberValue?.double == 0.03)
        for category in json["categories"]?.arrayValue ?? [] {
            #expect(category["uplift"]?["targetDifference"]?.numberValue?.double == 0.03)
            #expect(category["uplift"]?["targetSource"]?.stringValue == "given")
        }
        let table = try client.get(path.replacingOccurrences(of: "=3", with: "=2.5pp") + "&format=table", key: sample.app.readKey.text)
        #expect(table.status == 200 && table.text.contains("+2.5 pp"))
    }

    @Test func badParametersGetAClearError() throws {
        let sample = try SampleApp()
        defer { sample.collector.stop() }
        let client = sample.collector.client()
        for (query, fragment) in [("tz=Mars/Base", "time zone"), ("from=yesterday", "ISO 8601"), ("by=colour", "by must be"),
                                  ("format=pdf", "format must"), ("from=2026-11-05&to=2026-11-01", "before"), ("since=7x", "since"),
                                  ("target-difference=0", "target-difference"), ("target-difference=abc", "percentage points"),
                                  ("targetDifference=101", "at most 100")] {
            let response = try client.get("/v1/reports/engagement?" + query, key: sample.app.readKey.text)
            #expect(response.status == 400, "\(query): \(response.status)")
            #expect(response.errorCode == "bad_request")
            #expect(response.json?["error"]?["message"]?.stringValue?.contains(fragment) == true, "\(query): \(response.text)")
        }
    }
}

@Suite("Dismiss is measurable only with customDismissAction")
struct DismissTests {
    @Test func notMeasurableWithoutTheOption() throws {
        let sample = try SampleApp(dismissOption: false)
        defer { sample.collector.stop() }
        let report = try ReportFixtures.report(sample.collector.database, app: sample.app, from: sample.from, to: sample.to)
        for name in ["message", "social_post"] {
            let category = try ReportFixtures.category(report, name)
            #expect(!category.dismiss.measurable)
            #expect(category.dismiss.count == nil && category.dismiss.rate == nil, "not measurable is not zero")
        }
        #expect(!report.overall.dismiss.measurable)
        let json = JSONReportRenderer().json(report)
        let dismiss = try #require(json["categories"]?.arrayValue?.first { $0["category"]?.stringValue == "message" }?["dismiss"])
        #expect(dismiss["measurable"]?.boolValue == false)
        #expect(dismiss["count"]?.isNull == true && dismiss["rate"]?.isNull == true)
        #expect(TableReportRenderer().render(report).contains("n/m"))
    }

    @Test func measurableWithTheOption() throws {
        let sample = try SampleApp(dismissOption: true)
        defer { sample.collector.stop() }
        let report = try ReportFixtures.report(sample.collector.database, app: sample.app, from: sample.from, to: sample.to)
        let message = try ReportFixtures.category(report, "message")
        #expect(message.dismiss.measurable)
        // i % 5 == 3 among the 200 even i, minus those already opened: i ≡ 3 (mod 5) and even → 40.
        #expect(message.dismiss.count == 40)
        #expect(message.dismiss.base == 200)
        #expect(message.dismiss.rate == 0.2)
        #expect(!(try ReportFixtures.category(report, "social_post")).dismiss.measurable)
        // Replies: i ≡ 2 (mod 5), even → 40, lengths 10…16.
        #expect(message.textReplies.count == 40)
        #expect((10...16).contains(message.textReplies.p50Length ?? -1))
        // Latency 42 s lies in bin [2^(21/4), 2^(22/4)) = [38.1, 45.3) s: the midpoint is within 9.05%.
        let p50 = try #require(message.timeToResponse.p50Seconds)
        #expect(abs(p50 - 42) / 42 < LatencyBins.maxRelativeError)
    }

    /// The measurable pairs reach report_dismiss.sql as every category with every version when
    /// they are all the pairs of those, else as one key per pair: either way only those pairs are
    /// summed, and no two pairs' keys meet (`message1` with `.0` is not `message` with `1.0`).
    @Test func theMeasurablePairsAreReadExactlyEitherWay() throws {
        let sample = try SampleApp(dismissOption: true)
        defer { sample.collector.stop() }
        let connection = try sample.collector.database.connect()
        defer { connection.close() }
        let reader = PostgresReportReader(connection: connection)
        let scope = ReportScope(appId: sample.app.appId, from: sample.from, to: sample.to)
        func dismiss(_ pairs: [(category: String, appVersion: String)]) throws -> [String: [Int]] {
            var out: [String: [Int]] = [:]
            for row in try reader.read(scope, dismissMeasurable: pairs).dismiss {
                #expect(out[row.category] == nil, "one row per category")
                #expect(pairs.contains { $0.category == row.category && $0.appVersion == row.appVersion })
                out[row.category] = [row.delivered, row.dismissals]
            }
            return out
        }
        let every = [(category: "message", appVersion: "1.0"), (category: "social_post", appVersion: "1.0")]
        #expect(PostgresReportReader.dismissPairs(every).keys.isEmpty)
        #expect(try dismiss(every) == ["message": [200, 40], "social_post": [200, 0]])
        let some = [(category: "message", appVersion: "1.0"), (category: "social_post", appVersion: "2.0")]
        #expect(PostgresReportReader.dismissPairs(some).keys == ["11:social_post2.0", "7:message1.0"])
        #expect(try dismiss(some) == ["message": [200, 40]])
        #expect(try dismiss([(category: "message1", appVersion: ".0"), (category: "social_post", appVersion: "1.0")]) == ["social_post": [200, 0]])
        #expect(try dismiss([(category: "message", appVersion: "2.0")]) == [:])
    }

    /// Every category with every version is read by report_dismiss_grid_days.sql and, for the
    /// days a range cuts, report_dismiss_grid_quarters.sql; the same pairs and one more of a
    /// version without events go through report_dismiss.sql's keys. Both give the same rows over
    /// whole days, cut days, and both; and the report equals the raw-events one over each range.
    @Test func theGridAndTheKeysReadTheSameBaseOverWholeAndCutDays() throws {
        let sample = try SampleApp(dismissOption: true)
        defer { sample.collector.stop() }
        let connection = try sample.collector.database.connect()
        defer { connection.close() }
        let reader = PostgresReportReader(connection: connection)
        let hour = ReportFixtures.hour, quarter = hour / 4
        let grid = [(category: "message", appVersion: "1.0"), (category: "social_post", appVersion: "1.0")]
        let keyed = grid + [(category: "social_post", appVersion: "9.9")]
        #expect(PostgresReportReader.dismissPairs(grid).keys.isEmpty)
        #expect(PostgresReportReader.dismissPairs(keyed).keys.count == 3)
        // (from, to, zone): whole UTC days; one day cut at both edges; a cut day and a whole day;
        // Kolkata's midnights, which cut both UTC days.
        let ranges: [(Timestamp, Timestamp, String)] = [
            (sample.from, sample.to, "UTC"),
            (sample.from.adding(microseconds: 5 * hour + 3 * quarter), sample.from.adding(microseconds: 20 * hour + quarter), "UTC"),
            (sample.from.adding(microseconds: 5 * hour + 3 * quarter), sample.to, "UTC"),
            (sample.from.adding(microseconds: -(5 * hour + 2 * quarter)), sample.to.adding(microseconds: -(5 * hour + 2 * quarter)), "Asia/Kolkata"),
        ]
        for (from, to, zone) in ranges {
            let scope = ReportScope(appId: sample.app.appId, from: from, to: to, timeZone: zone)
            func rows(_ pairs: [(category: String, appVersion: String)]) throws -> [String: [Int]] {
                var out: [String: [Int]] = [:]
                for row in try reader.read(scope, dismissMeasurable: pairs).dismiss {
                    #expect(out[row.category] == nil, "one row per category")
                    #expect(grid.contains { $0.category == row.category && $0.appVersion == row.appVersion })
                    out[row.category] = [row.delivered, row.dismissals]
                }
                return out
            }
            let viaGrid = try rows(grid)
            #expect((viaGrid["message"]?[0] ?? 0) > 0, "\(from) to \(to): the range holds message's deliveries")
            #expect(viaGrid == (try rows(keyed)), "\(from) to \(to) in \(zone)")
            var fast = try ReportFixtures.report(sample.collector.database, app: sample.app, from: from, to: to, timeZone: zone)
            let slow = try ReportFixtures.report(sample.collector.database, app: sample.app, from: from, to: to, timeZone: zone, source: .rawEvents)
            #expect(try ReportFixtures.category(fast, "message").dismiss.measurable)
            fast.source = .rawEvents
            #expect(fast == slow, "\(from) to \(to) in \(zone): rollup and raw reports differ")
        }
    }

    /// The whole days' base is each block's sum over every version (rollup_dismiss_blocks,
    /// migration 0301) when every version the app has sent is measurable, else the rows of the
    /// measurable versions (rollup_dismiss_base). With events of a version without a manifest
    /// (`0.9`), the grid of both versions reads the blocks, the grid of `1.0` the versions' rows,
    /// and each equals the keyed read of the same pairs; so again after `rollups rebuild` (which
    /// also repairs a block's sum), and after late events (of both versions) into days whose
    /// blocks the rebuild made, folded on top of them. The tables equal the SQL oracle's
    /// recomputation and the reports the raw-events ones throughout.
    @Test func theBlocksAndTheVersionsRowsStayExactThroughARebuildAndLateEvents() throws {
        let sample = try SampleApp(dismissOption: true)
        defer { sample.collector.stop() }
        let client = sample.collector.client()
        let connection = try sample.collector.database.connect()
        defer { connection.close() }
        let reader = PostgresReportReader(connection: connection)
        let hour = ReportFixtures.hour
        var rng = SeededGenerator(seed: 33)
        /// `n` message deliveries of `version` from `at` on, every other one dismissed.
        func post(version: String, n: Int, at: Timestamp) throws {
            var events: [JSONValue] = []
            for i in 0..<n {
                let time = at.adding(microseconds: Int64(i) * 60_000_000)
                events.append(TestBatch.event("delivered", id: .v7(at: time, using: &rng), at: time, category: "message"))
                if i % 2 == 0 {
                    let responded = time.adding(seconds: 5)
                    events.append(TestBatch.event("response", id: .v7(at: responded, using: &rng), at: responded, category: "message",
                                                  [("deliveredAt", .string(time.description)),
                                                   ("actionIdentifier", .string(SystemAction.dismiss))]))
                }
            }
            _ = try ReportFixtures.post(client, key: sample.app.writeKey.text,
                                        TestBatch.body(events, context: [("appVersion", .string(version)), ("platform", "iOS")]))
        }
        let one = [(category: "message", appVersion: "1.0"), (category: "social_post", appVersion: "1.0")]
        let both = one + [(category: "message", appVersion: "0.9"), (category: "social_post", appVersion: "0.9")]
        #expect(PostgresReportReader.dismissPairs(one).keys.isEmpty && PostgresReportReader.dismissPairs(both).keys.isEmpty)
        func check(_ stage: String, message1: [Int], message09: [Int]) throws {
            // The report folds first: every acknowledged event is in the rollups from here on.
            for zone in ["UTC", "Asia/Kolkata"] {
                var fast = try ReportFixtures.report(sample.collector.database, app: sample.app, from: sample.from, to: sample.to, timeZone: zone)
                let slow = try ReportFixtures.report(sample.collector.database, app: sample.app, from: sample.from, to: sample.to,
                                                     timeZone: zone, source: .rawEvents)
                fast.source = .rawEvents
                #expect(fast == slow, "\(stage), \(zone): rollup and raw reports differ")
            }
            let scope = ReportScope(appId: sample.app.appId, from: sample.from, to: sample.to)
            func rows(_ pairs: [(category: String, appVersion: String)]) throws -> [String: [Int]] {
                var out: [String: [Int]] = [:]
                for row in try reader.read(scope, dismissMeasurable: pairs).dismiss {
                    out[row.category] = [(out[row.category]?[0] ?? 0) + row.delivered, (out[row.category]?[1] ?? 0) + row.dismissals]
                }
                return out
            }
            let keyedOne = one + [(category: "social_post", appVersion: "9.9")]
            let keyedBoth = both + [(category: "social_post", appVersion: "9.9")]
            #expect(try rows(one) == ["message": message1, "social_post": [200, 0]], "\(stage)")
            #expect(try rows(one) == (try rows(keyedOne)), "\(stage)")
            let sum = [message1[0] + message09[0], message1[1] + message09[1]]
            #expect(try rows(both) == ["message": sum, "social_post": [200, 0]], "\(stage)")
            #expect(try rows(both) == (try rows(keyedBoth)), "\(stage)")
            let stored = try RollupSnapshot.rows(appId: sample.app.appId, on: connection)
            #expect(stored.contains { $0.first == "z" } && stored.contains { $0 == ["v", "", "", "", "0.9", "", "", ""] }, "\(stage)")
            #expect(try RollupSnapshot.recomputedByOracle(appId: sample.app.appId, on: connection) == stored, "\(stage): the rollups differ from the oracle")
        }
        try post(version: "0.9", n: 20, at: sample.from.adding(microseconds: 2 * hour))
        try check("folded", message1: [200, 40], message09: [20, 10])
        let range = try #require(try RollupStore().eventHours(appId: sample.app.appId, on: connection))
        try connection.query("UPDATE rollup_dismiss_blocks SET delivered = delivered + 7 WHERE app_id = $1::bigint", [String(sample.app.appId)])
        try RollupStore().rebuild(appId: sample.app.appId, from: range.from, to: range.to, on: connection)
        try check("rebuilt", message1: [200, 40], message09: [20, 10])
        try post(version: "0.9", n: 6, at: sample.from.adding(microseconds: 30 * hour))
        try post(version: "1.0", n: 4, at: sample.from.adding(microseconds: 3 * hour))
        try check("late events after the rebuild", message1: [204, 42], message09: [26, 13])
    }
}

@Suite("Mismatch section of the report")
struct ReportMismatchSectionTests {
    @Test func theHTMLAndTableReportsShowTheMismatchesOfTheirRange() throws {
        let sample = try SampleApp()
        let client = sample.collector.client()
        // "Message" differs from the registered "message" only by case: iOS showed no buttons.
        let time = ReportFixtures.start.adding(microseconds: 5 * ReportFixtures.hour)
        _ = try ReportFixtures.post(client, key: sample.app.writeKey.text, TestBatch.body([
            TestBatch.event("delivered", at: time, category: "Message"), TestBatch.event("delivered", at: time, category: "Message"),
        ]))
        let html = try client.get("/report?from=2026-11-02&to=2026-11-03", key: sample.app.readKey.text)
        #expect(html.status == 200)
        #expect(html.text.contains("<h2>Category mismatches</h2>"))
        #expect(html.text.contains("case_mismatch"))
        #expect(html.text.contains("Engagement by category"))
        let table = try client.get("/v1/reports/engagement?from=2026-11-02&to=2026-11-03&format=table", key: sample.app.readKey.text)
        #expect(table.text.contains("Category mismatches"))
        #expect(table.text.contains("case_mismatch") && table.text.contains("Message"))
        // JSON keeps its versioned schema: no mismatch section there.
        let json = try client.get("/v1/reports/engagement?from=2026-11-02&to=2026-11-03", key: sample.app.readKey.text)
        #expect(json.json?["mismatches"] == nil)
        // Outside the mismatches' range the section says there are none.
        let later = try client.get("/report?from=2026-11-05&to=2026-11-06", key: sample.app.readKey.text)
        #expect(later.text.contains("No category mismatches"))
    }
}

@Suite("Report CSV over HTTP: formula injection")
struct ReportCSVFormulaInjectionTests {
    /// Hostile category, action and campaign names come back as text in the CSV export.
    @Test func engagementCSVDefusesHostileNames() throws {
        let csv = try FormulaInjection.exportAfterTraffic("/v1/reports/engagement?since=1d&format=csv&by=campaign")
        #expect(csv.status == 200, "\(csv.text.prefix(300))")
        #expect(FormulaInjection.liveCells(csv.text) == [])
        #expect(FormulaInjection.neutralised(csv.text) == Set(FormulaInjection.names))
    }
}
