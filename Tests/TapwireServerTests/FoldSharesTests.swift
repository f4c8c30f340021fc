import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireReport
import TapwireServer
import TapwireStatistics
import TapwireStore
import TapwireTestSupport

/// The collector's background fold in shares at once, each in its own transaction on its own
/// connection (docs/ingestion.md, "The fold's shares"): a report that waited for it reads what
/// the raw events give, conversion uplift included (the strata changes the deltas' share queues
/// are applied before it commits), and its readers are told only once every share has
/// committed. Each collector folds at start and then only when a report wakes it.
@Suite(.serialized) struct FoldSharesTests {
    /// Three UTC days back, at midnight: the traffic's two days are whole past days, read from
    /// the rollups alone, so only a fold makes them count.
    static let start = Timestamp(microseconds: (Timestamp.now.microseconds / ReportFixtures.day - 3) * ReportFixtures.day)
    static let end = start.adding(microseconds: 2 * ReportFixtures.day)

    static func collector(_ database: TestDatabase? = nil, connections: Int = 2) throws -> TestCollector {
        let configure: (inout CollectorConfiguration) -> Void = {
            $0.rateLimitPerSecond = 0
            $0.findingsMonitor = false
            $0.rollupFoldMilliseconds = 3_600_000
            $0.readFoldRestMilliseconds = 0
            $0.rollupFoldConnections = connections
        }
        let collector = try database.map { try TestCollector(database: $0, configure: configure) } ?? TestCollector.start(configure: configure)
        #expect(collector.firstFoldDone())
        return collector
    }

    /// Deliveries (rich and text-only), taps and conversions of four devices over the two days.
    static func batches(seed: UInt64) -> [[UInt8]] {
        var rng = SeededGenerator(seed: seed)
        return ConversionTraffic.batches(&rng, start: start)
    }

    static func post(_ batches: some Sequence<[UInt8]>, to collector: TestCollector, key: String) throws {
        for body in batches {
            #expect(try collector.client().post("/v1/batch", key: key, json: body).status == 200)
        }
    }

    /// The figures a report shows, engagement and conversions: every category's, the overall's
    /// and the conversion totals.
    static func figures(_ report: JSONValue?) -> [JSONValue?] {
        [report?["categories"], report?["overall"], report?["conversions"]]
    }

    /// The collector's report of the two days over HTTP: it waits for the background fold.
    static func collectorFigures(_ collector: TestCollector, key: String) throws -> [JSONValue?] {
        let range = "from=\(start.iso8601(fractionDigits: 0))&to=\(end.iso8601(fractionDigits: 0))&tz=UTC"
        let response = try collector.client().get("/v1/reports/engagement?format=json&" + range, key: key)
        #expect(response.status == 200, "\(response.text.prefix(300))")
        return figures(response.json)
    }

    /// The same report from the raw events (`tapwire report --from-raw`).
    static func rawFigures(_ collector: TestCollector, app: CreatedApp) throws -> [JSONValue?] {
        let report = try ReportFixtures.report(collector.database, app: app, from: start, to: end, source: .rawEvents)
        return figures(try JSONParser().parse(JSONReportRenderer().render(report)))
    }

    /// The rows conversions' sums depend on, queued for the fold, for the app.
    static func queued(_ collector: TestCollector, app: CreatedApp) throws -> [String?] {
        try collector.database.query("""
            SELECT (SELECT count(*) FROM conversion_strata_pending WHERE app_id = $1::bigint),
                   (SELECT count(*) FROM attribution_pending WHERE app_id = $1::bigint),
                   (SELECT count(*) FROM rollup_delta_batches WHERE app_id = $1::bigint)
            """, [String(app.appId)]).rows.first ?? []
    }

    /// A conversion uplift row's sums, as exact decimals without trailing zeros.
    static let terms = ["strata", "weights", "numerator", "p", "q", "null_sum", "deviation"].map { "trim_scale(\($0)::numeric)" }.joined(separator: ", ")

    /// Everything the fold writes for an app, as text without the app's id.
    static func snapshot(_ collector: TestCollector, app: CreatedApp) throws -> [[String?]] {
        let connection = try collector.database.connect()
        defer { connection.close() }
        let uplift = try connection.query("""
            SELECT 'u', day::text, concat_ws(' ', category, name, currency, \(Self.terms))
            FROM rollup_conversion_uplift_days WHERE app_id = $1::bigint
            UNION ALL SELECT 'b', day::text, concat_ws(' ', category, \(Self.terms))
            FROM rollup_conversion_base_days WHERE app_id = $1::bigint
            UNION ALL SELECT 's', day::text, concat_ws(' ', category, campaign, platform, rich_delivered, rich_engaged, text_delivered, text_engaged)
            FROM rollup_strata WHERE app_id = $1::bigint
            UNION ALL SELECT 't', bucket::text, concat_ws(' ', grain, category, has_media, delivered, opens, actions)
            FROM rollup_totals WHERE app_id = $1::bigint
            ORDER BY 1, 2, 3
            """, [String(app.appId)]).rows
        return try AttributionSnapshot.rows(appId: app.appId, on: connection) + uplift
    }

    /// The collector's report requested on a thread of its own, and its figures once answered.
    final class BackgroundReport: Sendable {
        private let answer = Mutex<[JSONValue?]?>(nil)
        private let answered = DispatchSemaphore(value: 0)

        init(_ collector: TestCollector, key: String) {
            Thread { [self] in
                let figures = try? FoldSharesTests.collectorFigures(collector, key: key)
                answer.withLock { $0 = figures }
                answered.signal()
            }.start()
        }

        /// Nil until the report has answered.
        var figures: [JSONValue?]? { answer.withLock { $0 } }

        func wait() { answered.wait() }
    }

    /// With one share held by the test's lock: no fold counted and the report not answered; once
    /// the lock is let go, the fold commits and the report equals the raw events'.
    static func expectToldOnlyOnceReleased(_ report: BackgroundReport, _ collector: TestCollector, app: CreatedApp,
                                           lock: PostgresConnection, foldsBefore: Int) throws {
        #expect(collector.foldsDone == foldsBefore, "no fold counted while a share runs")
        #expect(SharedFoldTests.metric(collector, CollectorMetrics.readFoldWaiting) == 1, "the report waits")
        #expect(report.figures == nil, "the report has not answered")
        try lock.query("COMMIT")
        report.wait()
        #expect(try queued(collector, app: app) == ["0", "0", "0"])
        #expect(report.figures == (try rawFigures(collector, app: app)))
        #expect(collector.foldsDone == foldsBefore + 1)
    }

    /// Two rounds of batches, each read by a report right after: the report equals the raw
    /// events' (conversion uplift included), nothing is left queued, and every rollup and credit
    /// equals what a collector whose fold runs in one transaction made of the same batches. With
    /// 2 connections attribution is one share; with 3 each part of its queue is one (migration
    /// 0328), on a connection of its own.
    @Test(arguments: [2, 3]) func aReportThatWaitedForTheSharedFoldEqualsTheRawEventsReport(connections: Int) throws {
        let shares = try Self.collector(connections: connections)
        defer { shares.stop() }
        let sequential = try Self.collector(shares.database, connections: 1)
        defer { sequential.stop() }
        let batches = Self.batches(seed: 35)
        var apps: [CreatedApp] = []
        for collector in [shares, sequential] {
            let app = try collector.database.createApp()
            apps.append(app)
            for round in [batches.prefix(6), batches.suffix(6)] {
                try Self.post(round, to: collector, key: app.writeKey.text)
                let folded = try Self.collectorFigures(collector, key: app.readKey.text)
                #expect(try Self.queued(collector, app: app) == ["0", "0", "0"])
                #expect(folded == (try Self.rawFigures(collector, app: app)))
            }
            #expect(try collector.database.query("SELECT count(*) FROM rollup_conversion_uplift_days WHERE app_id = $1::bigint",
                                                 [String(app.appId)]).scalar != "0", "the traffic should convert")
        }
        #expect(SharedFoldTests.waits(shares, "shared") == 2 && SharedFoldTests.waits(sequential, "shared") == 2)
        // The shares' own connections (each worker keeps its own), beside both collectors' folders'.
        let expected = ["tapwire-rollup-fold", "tapwire-rollup-fold"] + (connections == 2 ? ["tapwire-rollup-fold-attribution"]
            : (0..<AttributionPart.count).map { "tapwire-rollup-fold-attribution-\($0)" })
        let names = try shares.database.query("""
            SELECT application_name FROM pg_stat_activity
            WHERE datname = current_database() AND application_name LIKE 'tapwire-rollup-fold%' ORDER BY 1
            """).rows.map { $0.first ?? nil }
        #expect(names == expected)
        let (a, b) = (try Self.snapshot(shares, app: apps[0]), try Self.snapshot(sequential, app: apps[1]))
        #expect(a == b, "\(a.count) rows in shares, \(b.count) in one transaction; first differing: \(zip(a, b).first { $0 != $1 }.map { "\($0)" } ?? "-")")
    }

    /// The deltas' share held (the test locks rollup_delta_batches against its take): the
    /// attribution share commits alone, and the report that woke the fold is not told until the
    /// deltas' share, which applies the strata changes to the conversions, has committed too.
    @Test func whileTheDeltasShareIsHeldAttributionCommitsAndTheReportWaits() throws {
        let collector = try Self.collector()
        defer { collector.stop() }
        let app = try collector.database.createApp()
        let batches = Self.batches(seed: 36)
        try Self.post(batches.prefix(6), to: collector, key: app.writeKey.text)
        _ = try Self.collectorFigures(collector, key: app.readKey.text)
        try Self.post(batches.suffix(6), to: collector, key: app.writeKey.text)
        let foldsBefore = collector.foldsDone
        let lock = try collector.database.connect()
        defer { lock.close() }
        try lock.query("BEGIN")
        try lock.query("LOCK TABLE rollup_delta_batches IN SHARE MODE")

        let report = BackgroundReport(collector, key: app.readKey.text)
        // Attribution's share committed (its queue is gone to another connection) while the
        // deltas' share waits on the test's lock.
        #expect(eventually(timeout: 60) { (try? Self.queued(collector, app: app))?[1] == "0" }, "the attribution share never committed")
        #expect(SharedFoldTests.foldWaitsOnALock(collector.database), "the deltas' share never waited on the test's lock")
        #expect(try Self.queued(collector, app: app)[2] != "0", "the deltas are not folded yet")
        try Self.expectToldOnlyOnceReleased(report, collector, app: app, lock: lock, foldsBefore: foldsBefore)
    }

    /// The attribution share held (the test holds the app's attribution lock): the deltas'
    /// share folds and then waits for it, its transaction open, and the report is not told
    /// until both have committed.
    @Test func whileTheAttributionShareIsHeldTheDeltasShareWaitsUncommitted() throws {
        let collector = try Self.collector()
        defer { collector.stop() }
        let app = try collector.database.createApp()
        try Self.post(Self.batches(seed: 37), to: collector, key: app.writeKey.text)
        let foldsBefore = collector.foldsDone
        let lock = try collector.database.connect()
        defer { lock.close() }
        try lock.query("BEGIN")
        try lock.query("SELECT pg_advisory_xact_lock(7358161, hashint8($1::bigint))", [String(app.appId)])

        let report = BackgroundReport(collector, key: app.readKey.text)
        // The deltas' share has upserted (its last statement before it waits: one app, one
        // batch of apps) and waits, idle in its transaction, for attribution's.
        #expect(eventually(timeout: 60) {
            (try? collector.database.query("""
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                AND application_name = 'tapwire-rollup-fold' AND state = 'idle in transaction'
                AND query LIKE '%tapwire_fold_rollups()%'
                """).scalar) == "1"
        }, "the deltas' share never waited for the attribution share")
        #expect(try Self.queued(collector, app: app)[1] != "0", "attribution waits on the test's lock")
        try Self.expectToldOnlyOnceReleased(report, collector, app: app, lock: lock, foldsBefore: foldsBefore)
    }
}
