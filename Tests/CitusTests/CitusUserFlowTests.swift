import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireDemo
import TapwireReport
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// The whole user flow on a coordinator and two workers, beside one plain PostgreSQL given the
/// same batches: every report, finding and rollup row must be the same on both.
///
/// On Citus two collectors take every batch at once, and then one of them takes it again (a
/// retry); on PostgreSQL one collector takes it twice. The scenario: the demo's population over a
/// few days (categories, campaigns, variants, media, replies, three app versions, iOS and
/// watchOS), and an app whose new release broke a button and posts a category it never
/// registered. Batches carry no `sentAt`, so the events' times do not depend on when each side
/// received them.
@Suite struct CitusUserFlowTests {
    /// One side of the comparison.
    struct Side {
        let database: TestDatabase
        let collectors: [TestCollector]
        let demo: CreatedApp
        let release: CreatedApp

        init(_ database: TestDatabase, collectors: Int) throws {
            self.database = database
            // No findings monitor: a scan landing while the batches arrive would store the hour's
            // release look from part of them (seen once: 2,238 of 3,840 deliveries), and a stored
            // look is kept, not redone. The announcing collectors, started with every batch in, take it.
            self.collectors = try (0..<collectors).map { _ in
                try TestCollector(database: database) { $0.rateLimitPerSecond = 0; $0.findingsMonitor = false }
            }
            demo = try database.createApp("flow-demo")
            release = try database.createApp("flow-release")
        }

        func stop() { collectors.forEach { $0.stop() } }

        func connect() throws -> PostgresConnection { try database.connect() }
    }

    static let hour: Int64 = 3_600_000_000

    /// Posts `body` to `collector`: 200, or the test fails. Returns (accepted, duplicates).
    static func post(_ collector: TestCollector, key: String, _ body: [UInt8]) throws -> (Int, Int) {
        let response = try collector.client().post("/v1/batch", key: key, json: body)
        guard response.status == 200, let json = response.json else {
            throw TestClientError(message: "POST /v1/batch: \(response.status) \(response.text)")
        }
        return (Int(json["accepted"]?.numberValue?.integer ?? -1), Int(json["duplicates"]?.numberValue?.integer ?? -1))
    }

    /// Every batch to the side's collectors: at once to each (two collectors racing for the same
    /// ids on Citus), then once more to the first (a retry). Returns how many were accepted.
    static func deliver(_ batches: [[UInt8]], manifests: [[UInt8]], to side: Side, app: CreatedApp) throws -> Int {
        for manifest in manifests {
            for collector in side.collectors {
                let response = try collector.client().post("/v1/categories", key: app.writeKey.text, json: manifest)
                #expect(response.status == 200, "\(response.text)")
            }
        }
        var accepted = 0
        for body in batches {
            let answers = Mutex<[Result<(Int, Int), any Error>]>([])
            DispatchQueue.concurrentPerform(iterations: side.collectors.count) { index in
                let answer = Result { try post(side.collectors[index], key: app.writeKey.text, body) }
                answers.withLock { $0.append(answer) }
            }
            let retry = try post(side.collectors[0], key: app.writeKey.text, body)
            let counts = try answers.withLock { $0 }.map { try $0.get() } + [retry]
            accepted += counts.reduce(0) { $0 + $1.0 }
            // Every answer accounts for every event of the batch, stored or duplicate.
            let events = counts[0].0 + counts[0].1
            #expect(counts.allSatisfy { $0.0 + $0.1 == events })
            #expect(retry.0 == 0, "the retry stored \(retry.0) events again")
        }
        return accepted
    }

    /// The report of `request` on both sides, rendered in every format (the findings sections
    /// from `findings` when given), equal byte for byte.
    static func expectSameReport(_ options: [(String, String)], app: (Side) -> CreatedApp, citus: Side, postgres: Side, now: Timestamp,
                                 findingsAt: Timestamp? = nil, comment: String) throws {
        let request = try ReportRequest(options: options)
        var rendered: [[String]] = []
        for side in [citus, postgres] {
            let connection = try side.connect()
            defer { connection.close() }
            let created = app(side)
            let report = try EngagementReportService().report(appId: created.appId, appName: created.name, request: request,
                                                              on: connection, now: now)
            let findings = try findingsAt.map {
                try FindingsService().report(appId: created.appId, appName: created.name, since: report.from, asOf: $0,
                                             look: .computed, on: connection)
            }
            rendered.append(ReportOutputFormat.allCases.map { $0.render(report, findings: findings) })
        }
        for (index, format) in ReportOutputFormat.allCases.enumerated() {
            #expect(rendered[0][index] == rendered[1][index], "\(comment), \(format): Citus and PostgreSQL differ")
        }
        #expect(rendered[0][0].count > 200, "\(comment): an empty report")
    }

    static func snapshot(_ side: Side) throws -> [[[String?]]] {
        let connection = try side.connect()
        defer { connection.close() }
        try RollupStore().fold(on: connection)
        return try [side.demo, side.release].map { try RollupSnapshot.rows(appId: $0.appId, on: connection) }
    }

    static func findings(_ side: Side, at: Timestamp, look: FindingsQuery.Look = .computed) throws -> JSONValue {
        let connection = try side.connect()
        defer { connection.close() }
        return try FindingsService().report(appId: side.release.appId, appName: side.release.name, since: at.adding(seconds: -86_400),
                                            asOf: at, look: look, on: connection).json
    }

    @Test func theUserFlowOnThreeNodesEqualsOnePostgreSQL() throws {
        let cluster = try citus()
        let citus = try Side(try cluster.migratedDatabase(prefix: "flow"), collectors: 2)
        let postgres = try Side(try TestDatabase.create(), collectors: 1)
        defer { citus.stop(); postgres.stop() }
        let now = Timestamp.now
        let s = FleetScenario(now: now)

        // Ingestion: every event stored once on each side, whatever raced and retried.
        for side in [citus, postgres] {
            #expect(try Self.deliver(s.demoBatches, manifests: s.demoManifests, to: side, app: side.demo) == s.demoEvents)
            #expect(try Self.deliver(s.releaseBatches, manifests: s.releaseManifests, to: side, app: side.release) == s.releaseEvents)
            let connection = try side.connect()
            defer { connection.close() }
            for (app, events) in [(side.demo, s.demoEvents), (side.release, s.releaseEvents)] {
                #expect(try connection.query("SELECT count(*) FROM events WHERE app_id = $1::bigint", [String(app.appId)]).scalar == String(events))
                #expect(try connection.query("SELECT count(*) FROM event_ids WHERE app_id = $1::bigint", [String(app.appId)]).scalar == String(events))
            }
        }
        #expect(try Self.snapshot(citus) == Self.snapshot(postgres))

        // Reports: every format, zones with odd offsets, edges off the quarter hour, each filter
        // and each --by, and the raw-events report.
        let from = s.demoFrom.description, to = s.demoTo.description
        let lastDay = String(s.demoTo.adding(seconds: -1).description.prefix(10)), firstDay = String(s.demoFrom.description.prefix(10))
        let offQuarter = [("from", s.demoFrom.adding(seconds: 86_400 + 1_020).description), ("to", s.demoTo.adding(seconds: -86_400 - 3_900 + 7).description)]
        let variants: [(options: [(String, String)], comment: String)] = [
            ([("from", from), ("to", to)], "the whole range"),
            ([("from", firstDay), ("to", lastDay), ("tz", "Asia/Kolkata")], "local days in Kolkata"),
            ([("from", firstDay), ("to", lastDay), ("tz", "America/St_Johns"), ("by", "platform")], "St John's, by platform"),
            ([("from", firstDay), ("to", lastDay), ("tz", "Asia/Kathmandu"), ("by", "variant")], "Kathmandu, by variant"),
            ([("since", "30h"), ("to", to)], "the last 30 hours"),
            (offQuarter, "edges off the quarter hour"),
            (offQuarter + [("tz", "Asia/Kolkata"), ("by", "campaign")], "edges off the quarter hour in Kolkata, by campaign"),
            ([("from", from), ("to", to), ("by", "version")], "by version"),
            ([("from", from), ("to", to), ("platform", "iOS")], "iOS only"),
            ([("from", from), ("to", to), ("version", "3.2.1")], "3.2.1 only"),
            ([("from", from), ("to", to), ("campaign", "")], "no campaign"),
            ([("from", from), ("to", to), ("campaign", "winter-sale"), ("variant", "B")], "campaign and variant"),
            ([("from", from), ("to", to), ("min-sample", "30"), ("target-difference", "3")], "a smaller sample, a target"),
            ([("from", from), ("to", to), ("source", "raw")], "from raw events"),
        ]
        for variant in variants {
            try Self.expectSameReport(variant.options.filter { $0.0 != "source" }, app: \.demo, citus: citus, postgres: postgres, now: now,
                                      findingsAt: variant.comment == "the whole range" ? s.demoTo : nil, comment: variant.comment)
        }
        // The raw-events report (the oracle of the rollups) on Citus equals the rollups' on PostgreSQL.
        var raw = try ReportRequest(options: [("from", from), ("to", to)])
        raw.source = .rawEvents
        let rawOnCitus = try citus.connect()
        defer { rawOnCitus.close() }
        let rollupsOnPostgres = try postgres.connect()
        defer { rollupsOnPostgres.close() }
        let rawReport = try EngagementReportService().report(appId: citus.demo.appId, appName: citus.demo.name, request: raw,
                                                             on: rawOnCitus, now: now)
        let rollupReport = try EngagementReportService().report(appId: postgres.demo.appId, appName: postgres.demo.name,
                                                                request: try ReportRequest(options: [("from", from), ("to", to)]),
                                                                on: rollupsOnPostgres, now: now)
        #expect(JSONReportRenderer().render(rawReport).replacingOccurrences(of: "\"rawEvents\"", with: "\"rollups\"")
                == JSONReportRenderer().render(rollupReport))
        try Self.expectSameReport([("from", s.release.adding(seconds: -86_400).description), ("to", now.description)], app: \.release,
                                  citus: citus, postgres: postgres, now: now, findingsAt: now, comment: "the release app")

        // Findings: the release-regression check and the mismatches, replayed at instants and now.
        let looks = [12.0, 24, 47].map { s.release.adding(seconds: $0 * 3600) } + [now]
        for at in looks {
            #expect(try Self.findings(citus, at: at) == Self.findings(postgres, at: at), "findings at \(at)")
        }
        let current = try Self.findings(citus, at: now)
        let kinds = Set((current["findings"]?.arrayValue ?? []).compactMap { $0["kind"]?.stringValue })
        #expect(kinds.contains("engagement_regression") && kinds.contains("unknown_category"), "\(kinds)")

        // The webhook: two collectors on Citus announce each finding once; the same findings as
        // on PostgreSQL. Started now, with every batch in, they also take the hour's release
        // look (the first collectors run without the monitor), once, and readers serve it.
        let announced = try [(citus, 2), (postgres, 1)].map { try announcements($0.0, collectors: $0.1) }
        #expect(announced[0] == announced[1])
        #expect(!announced[0].isEmpty)

        // Rebuild (every app, then one app): the rollups are still those of PostgreSQL.
        let rebuild = try citus.connect()
        defer { rebuild.close() }
        let range = (from: s.release.adding(seconds: -2 * 86_400), to: now.adding(seconds: 3_600))
        try RollupStore().rebuild(appId: nil, from: range.from, to: range.to, on: rebuild)
        try RollupStore().rebuild(appId: citus.demo.appId, from: s.demoFrom, to: s.demoTo, on: rebuild)
        #expect(try Self.snapshot(citus) == Self.snapshot(postgres))
        try Self.expectSameReport([("from", firstDay), ("to", lastDay), ("tz", "Asia/Kolkata"), ("by", "version")], app: \.demo,
                                  citus: citus, postgres: postgres, now: now, comment: "after the rebuild")

        // Retention: an old day's partition and its ids go, the reports stay.
        try rebuild.query("SELECT tapwire_ensure_event_partitions('2024-01-01', '2024-01-01')")
        try rebuild.query("""
            INSERT INTO events (app_id, event_time, event_id, type, device_time, received_at, category)
            VALUES ($1::bigint, '2024-01-01 10:00+00', gen_random_uuid(), 'delivered', '2024-01-01 10:00+00', '2024-01-01 10:00+00', 'old')
            """, [String(citus.demo.appId)])
        try rebuild.query("INSERT INTO event_ids VALUES ($1::bigint, gen_random_uuid(), '2024-01-01 10:00+00')", [String(citus.demo.appId)])
        let outcome = try RetentionStore().run(try RetentionPolicy(keepSeconds: 400 * 86_400), dryRun: false, on: rebuild)
        #expect(outcome.partitions.map(\.name) == ["events_20240101"] && outcome.eventIdsDeleted == 1)
        #expect(try rebuild.query("SELECT count(*) FROM events WHERE event_time < '2025-01-01'").scalar == "0")
        try Self.expectSameReport([("from", from), ("to", to)], app: \.demo, citus: citus, postgres: postgres, now: now,
                                  comment: "after retention")
    }

    /// Waits for the collectors of `side` to store the release app's look of the hour they
    /// check (the last whole hour a few minutes after it ended), then checks that a reader
    /// serves it and that it says what a fresh computation says.
    func expectStoredLookServed(_ side: Side) throws {
        let connection = try side.connect()
        defer { connection.close() }
        let look = Timestamp(microseconds: RollupDeltas.floor(Timestamp.now.adding(seconds: -FindingMonitor.Options().regressionDelaySeconds).microseconds,
                                                              Self.hour))
        let stored = eventually(timeout: 60) {
            (try? connection.query("SELECT count(*) FROM regression_looks WHERE app_id = $1::bigint AND looks_end = $2::timestamptz",
                                   [String(side.release.appId), look.description]).scalar) == "1"
        }
        #expect(stored, "no stored look of \(look)")
        let served = try Self.findings(side, at: look, look: .current)
        #expect(served["regressions"]?["lookSource"]?.stringValue == "stored", "\(served["regressions"]?["lookSource"] ?? .null)")
        let computed = try Self.findings(side, at: look, look: .computed)
        #expect(served["findings"] == computed["findings"])
    }

    /// The keys announced by webhook when `collectors` collectors with a webhook scan `side`'s
    /// findings at once, each key announced once.
    func announcements(_ side: Side, collectors: Int) throws -> [String] {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let announcing = try (0..<collectors).map { _ in
            try TestCollector(database: side.database) { c in
                c.alertWebhookURL = receiver.url
                c.alertOptions.scanSeconds = 0.2
                c.alertOptions.deliverySeconds = 0.05
                c.alertOptions.requestTimeoutSeconds = 2
            }
        }
        defer { announcing.forEach { $0.stop() } }
        let connection = try side.connect()
        defer { connection.close() }
        let settled = eventually(timeout: 60) {
            let counts = (try? FindingOutbox().counts(on: connection)) ?? [:]
            return (counts["sent"] ?? 0) > 0 && (counts["pending"] ?? 0) == 0 && receiver.messages.count == Int(counts["sent"] ?? -1)
        }
        let counts = try FindingOutbox().counts(on: connection)
        #expect(settled, "the outbox did not settle: \(counts), \(receiver.messages.count) received")
        let keys = receiver.messages.map(\.alertId)
        #expect(Set(keys).count == keys.count, "announced twice: \(keys)")
        try expectStoredLookServed(side)
        return keys.sorted()
    }
}
