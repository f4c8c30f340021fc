import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// Connections the server closed while the collector left them idle (docs/deployment.md, "The
/// server's timeouts"): `idle_session_timeout` set on the database, or `pg_terminate_backend`
/// (what a restart or a failover does to every session). libpq notices such a close only when
/// it next reads, so without a look before use the next batch's commit, the next report's reads
/// and the next fold each failed once per connection (503 `database_unavailable`). Here the
/// batch, the report (and the fold it wakes) and the findings answer 200 at the first attempt.
/// Deterministic: each test waits until pg_stat_activity shows none of the collector's sessions
/// (the server sends its FATAL before a session leaves it), never on a sleep racing the timeout.
@Suite(.serialized) struct IdleConnectionsTests {
    static func collector(_ database: TestDatabase) throws -> TestCollector {
        let collector = try TestCollector(database: database) {
            $0.rateLimitPerSecond = 0
            $0.findingsMonitor = false
            $0.rollupFoldMilliseconds = 3_600_000 // folds only when a report wakes it
            $0.readFoldRestMilliseconds = 0
            $0.rollupFoldConnections = 3
        }
        #expect(collector.firstFoldDone())
        return collector
    }

    /// The collector's sessions (writers, readers, the fold's), not the test's own.
    static let collectorSessions = """
        SELECT count(*) FROM pg_stat_activity
        WHERE datname = current_database() AND application_name LIKE 'tapwire-%' AND application_name <> 'tapwire-test'
        """

    /// Waits until every session of the collector has left pg_stat_activity.
    static func collectorSessionsGone(_ database: TestDatabase) -> Bool {
        eventually(timeout: 60) { (try? database.query(collectorSessions).scalar) == "0" }
    }

    static let range: String = {
        let now = Timestamp.now
        return "from=\(now.adding(seconds: -86_400).iso8601(fractionDigits: 0))&to=\(now.adding(seconds: 86_400).iso8601(fractionDigits: 0))&tz=UTC"
    }()

    /// A batch, a report (which waits for the fold it wakes) and the findings: each answers 200
    /// at the first attempt, and the report counts every event posted so far.
    static func expectAnswered(_ collector: TestCollector, app: CreatedApp, posted: inout Int, _ when: String) throws {
        let batch = try collector.client().post("/v1/batch", key: app.writeKey.text,
                                                json: TestBatch.body([TestBatch.event(), TestBatch.event()]))
        #expect(batch.status == 200, "batch \(when): \(batch.text.prefix(300))")
        if batch.status == 200 { posted += 2 }
        let report = try collector.client().get("/v1/reports/engagement?format=json&" + range, key: app.readKey.text)
        #expect(report.status == 200, "report \(when): \(report.text.prefix(300))")
        #expect(report.json?["overall"]?["delivered"]?.numberValue?.integer == Int64(posted), "report \(when): \(report.text.prefix(600))")
        let findings = try collector.client().get("/v1/findings", key: app.readKey.text)
        #expect(findings.status == 200, "findings \(when): \(findings.text.prefix(300))")
    }

    static func expectNoFailureLogged(_ collector: TestCollector) {
        let lines = collector.logs.capturedLines
        #expect(!lines.contains { $0.contains("rollup fold failed") }, "\(lines.filter { $0.contains("fold failed") })")
        #expect(!lines.contains { $0.contains("database unavailable") }, "\(lines.filter { $0.contains("unavailable") })")
        #expect(lines.contains { $0.contains("closed by the server while idle") && $0.contains("tapwire-writer") })
        #expect(lines.contains { $0.contains("closed by the server while idle") && $0.contains("tapwire-reader") })
        // Counted too, by connection, for the operator's dashboards.
        for connection in ["tapwire-writer", "tapwire-reader", "tapwire-rollup-fold"] {
            #expect(replaced(collector, connection) >= 1, "\(connection): \(replaced(collector, connection))")
        }
    }

    /// `tapwire_database_connections_replaced_total` of `connection`, as the collector exposes it.
    static func replaced(_ collector: TestCollector, _ connection: String) -> Double {
        SharedFoldTests.metric(collector, CollectorMetrics.databaseConnectionsReplaced + "{connection=\"\(connection)\"}")
    }

    /// `idle_session_timeout` of 1 s on the database ends every connection the collector leaves
    /// idle; twice over, the next requests are answered 200.
    @Test func requestsAfterIdleSessionTimeoutEndedTheConnections() throws {
        let database = try TestDatabase.create()
        let app = try database.createApp()
        try database.query("ALTER DATABASE \(database.name) SET idle_session_timeout = '1s'")
        let collector = try Self.collector(database)
        defer { collector.stop() }
        var posted = 0
        try Self.expectAnswered(collector, app: app, posted: &posted, "before any idle spell")
        for round in 1...2 {
            #expect(Self.collectorSessionsGone(database), "the server did not end the collector's idle sessions")
            try Self.expectAnswered(collector, app: app, posted: &posted, "after idle spell \(round)")
        }
        Self.expectNoFailureLogged(collector)
    }

    /// A report waits for the fold with its reader's connection idle: held past the database's
    /// `idle_session_timeout` (the test's lock holds the fold until the server has ended every
    /// reader's session), the report still answers 200 once the fold commits: its connection is
    /// replaced after the wait, before its reads.
    @Test func aReportWhoseConnectionTheServerClosedWhileItWaitedForTheFold() throws {
        let database = try TestDatabase.create()
        let app = try database.createApp()
        try database.query("ALTER DATABASE \(database.name) SET idle_session_timeout = '1s'")
        let collector = try Self.collector(database)
        defer { collector.stop() }
        let batch = try collector.client().post("/v1/batch", key: app.writeKey.text,
                                                json: TestBatch.body([TestBatch.event(), TestBatch.event(), TestBatch.event()]))
        #expect(batch.status == 200, "\(batch.text.prefix(300))")
        let lock = try database.connect()
        defer { lock.close() }
        try lock.executeScript("SET idle_session_timeout = 0; SET idle_in_transaction_session_timeout = 0; SET lock_timeout = 0")
        try lock.query("BEGIN")
        try lock.query("LOCK TABLE rollup_delta_batches IN SHARE MODE")

        let answer = Mutex<TestResponse?>(nil)
        let answered = DispatchSemaphore(value: 0)
        let client = collector.client(), key = app.readKey.text
        Thread {
            let response = try? client.get("/v1/reports/engagement?format=json&" + Self.range, key: key)
            answer.withLock { $0 = response }
            answered.signal()
        }.start()
        #expect(eventually(timeout: 60) { SharedFoldTests.metric(collector, CollectorMetrics.readFoldWaiting) == 1 }, "the report waits for the fold")
        #expect(eventually(timeout: 60) {
            (try? database.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tapwire-reader'").scalar) == "0"
        }, "the server did not end the waiting reader's idle session")
        #expect(answer.withLock { $0 } == nil, "the report has not answered")
        try lock.query("COMMIT")
        answered.wait()
        let report = answer.withLock { $0 }
        #expect(report?.status == 200, "\(report?.text.prefix(300) ?? "no answer")")
        #expect(report?.json?["overall"]?["delivered"]?.numberValue?.integer == 3)
        #expect(collector.logs.capturedLines.contains { $0.contains("closed by the server while idle") && $0.contains("reader-after-fold-wait") })
        #expect(Self.replaced(collector, "reader-after-fold-wait") == 1)
    }

    /// `pg_terminate_backend` of every session of the collector while it is idle (a restart's
    /// or a failover's effect): the next requests are answered 200.
    @Test func requestsAfterTheServerTerminatedTheIdleConnections() throws {
        let database = try TestDatabase.create()
        let app = try database.createApp()
        let collector = try Self.collector(database)
        defer { collector.stop() }
        var posted = 0
        try Self.expectAnswered(collector, app: app, posted: &posted, "before the sessions were terminated")
        // Every writer and reader has a connection: one more request of each kind than there are threads.
        for _ in 0..<3 { try Self.expectAnswered(collector, app: app, posted: &posted, "warming every connection") }
        #expect(Int(try database.query(Self.collectorSessions).scalar ?? "0") ?? 0 >= 4)
        try database.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND application_name LIKE 'tapwire-%' AND application_name <> 'tapwire-test'
            """)
        #expect(Self.collectorSessionsGone(database))
        try Self.expectAnswered(collector, app: app, posted: &posted, "after the sessions were terminated")
        Self.expectNoFailureLogged(collector)
    }
}
