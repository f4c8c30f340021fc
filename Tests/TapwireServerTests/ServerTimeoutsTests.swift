import Foundation
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// The collector's background fold under the server's timeouts an operator sets per role or
/// database (docs/deployment.md, "The server's timeouts"): with `idle_in_transaction_session_timeout`,
/// `statement_timeout` or `lock_timeout` of 200 ms on the database, a fold in shares on 3
/// connections whose share is held by the test's lock far past that still commits once the lock
/// is let go, and the report that woke it equals the raw events'. Deterministic: the shares are
/// held by locks, and each test waits (in pg_stat_activity) until a share has been idle or
/// waiting five times the timeout before it lets go; on a collector whose transactions keep the
/// operator's timeouts that state never lasts that long (the server ends the session or cancels
/// the statement), and the fold fails.
@Suite(.serialized) struct ServerTimeoutsTests {
    /// A fresh database whose new sessions get `setting` = 200ms, as `ALTER ROLE … SET` or
    /// `ALTER DATABASE … SET` would give every session of the collector.
    static func database(with settings: [String]) throws -> TestDatabase {
        let database = try TestDatabase.create()
        for setting in settings {
            try database.query("ALTER DATABASE \(database.name) SET \(setting) = '200ms'")
            #expect(try database.query("SELECT current_setting($1)", [setting]).scalar == "200ms", "a new session gets \(setting)")
        }
        return database
    }

    /// The test's own connection, which holds locks in an open transaction: without the
    /// database's timeouts (a session setting of the test's, on a direct connection).
    static func lockHolder(_ database: TestDatabase) throws -> PostgresConnection {
        let lock = try database.connect()
        try lock.executeScript("SET statement_timeout = 0; SET lock_timeout = 0; SET idle_in_transaction_session_timeout = 0")
        return lock
    }

    /// Whether one session of `application` has been in `state` (and, with `waitingOnALock`,
    /// waiting for a lock) for at least a second: five times the database's timeouts.
    static func heldPastTheTimeouts(_ database: TestDatabase, application: String, state: String, waitingOnALock: Bool) -> Bool {
        eventually(timeout: 60) {
            (try? database.query("""
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = $1 AND state = $2
                AND ($3::boolean IS FALSE OR wait_event_type = 'Lock')
                AND clock_timestamp() - state_change > interval '1 second'
                """, [application, state, String(waitingOnALock)]).scalar) == "1"
        }
    }

    /// The attribution share of part 0 held by the test (it holds the app's part-0 attribution
    /// lock): the deltas' share has folded and waits for it, idle in its transaction, past the
    /// database's `idle_in_transaction_session_timeout`, and the part's share waits for the lock
    /// past `statement_timeout` and `lock_timeout`; let go, the fold commits.
    @Test func theDeltasShareWaitsIdleInTransactionPastTheServersTimeouts() throws {
        let database = try Self.database(with: ["idle_in_transaction_session_timeout", "statement_timeout", "lock_timeout"])
        let collector = try FoldSharesTests.collector(database, connections: 3)
        defer { collector.stop() }
        let app = try collector.database.createApp()
        try FoldSharesTests.post(FoldSharesTests.batches(seed: 41), to: collector, key: app.writeKey.text)
        let foldsBefore = collector.foldsDone
        let lock = try Self.lockHolder(database)
        defer { lock.close() }
        try lock.query("BEGIN")
        try lock.query("SELECT pg_advisory_xact_lock(7358161, hashint8($1::bigint))", [String(app.appId)])

        let report = FoldSharesTests.BackgroundReport(collector, key: app.readKey.text)
        #expect(Self.heldPastTheTimeouts(database, application: "tapwire-rollup-fold", state: "idle in transaction", waitingOnALock: false),
                "the deltas' share was not left waiting idle in its transaction")
        #expect(Self.heldPastTheTimeouts(database, application: "tapwire-rollup-fold-attribution-0", state: "active", waitingOnALock: true),
                "attribution's part 0 was not left waiting for the test's lock")
        try FoldSharesTests.expectToldOnlyOnceReleased(report, collector, app: app, lock: lock, foldsBefore: foldsBefore)
    }

    /// The deltas' share held by the test (it locks rollup_delta_batches against the share's
    /// take): the take's statement waits past the database's `statement_timeout` (or
    /// `lock_timeout`) alone; let go, the fold commits.
    @Test(arguments: ["statement_timeout", "lock_timeout"]) func aFoldStatementWaitsPastTheServersTimeout(setting: String) throws {
        let database = try Self.database(with: [setting])
        let collector = try FoldSharesTests.collector(database, connections: 3)
        defer { collector.stop() }
        let app = try collector.database.createApp()
        try FoldSharesTests.post(FoldSharesTests.batches(seed: 42), to: collector, key: app.writeKey.text)
        let foldsBefore = collector.foldsDone
        let lock = try Self.lockHolder(database)
        defer { lock.close() }
        try lock.query("BEGIN")
        try lock.query("LOCK TABLE rollup_delta_batches IN SHARE MODE")

        let report = FoldSharesTests.BackgroundReport(collector, key: app.readKey.text)
        #expect(Self.heldPastTheTimeouts(database, application: "tapwire-rollup-fold", state: "active", waitingOnALock: true),
                "the deltas' share did not wait for the test's lock past the server's \(setting)")
        try FoldSharesTests.expectToldOnlyOnceReleased(report, collector, app: app, lock: lock, foldsBefore: foldsBefore)
    }

    /// The findings monitor's scan (its `tapwire-findings` connection) waits for the test's lock
    /// on `apps`, which each family's list of apps to scan reads, past the database's 200 ms
    /// `statement_timeout` and `lock_timeout`; let go, the scan completes (its families are
    /// counted as checked) and no database error was logged. Keeping the operator's timeouts, the
    /// server cancels the read at 200 ms, every scan.
    @Test func theFindingsMonitorsScanWaitsPastTheServersTimeouts() throws {
        let database = try Self.database(with: ["idle_in_transaction_session_timeout", "statement_timeout", "lock_timeout"])
        let collector = try TestCollector(database: database) {
            $0.rateLimitPerSecond = 0
            $0.rollupFoldMilliseconds = 3_600_000
            $0.readFoldRestMilliseconds = 0
            $0.alertOptions.scanSeconds = 0.2
            $0.alertOptions.deliverySeconds = 0.05
        }
        defer { collector.stop() }
        #expect(collector.firstFoldDone())
        func checks() -> Int {
            collector.metrics.render().split(separator: "\n").filter { $0.hasPrefix("tapwire_findings_checks_total{family=") }
                .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0) { $0 + Int($1) }
        }
        #expect(eventually(timeout: 60) { checks() > 0 }, "the monitor scans")
        let lock = try Self.lockHolder(database)
        defer { lock.close() }
        try lock.query("BEGIN")
        try lock.query("LOCK TABLE apps IN ACCESS EXCLUSIVE MODE")
        #expect(Self.heldPastTheTimeouts(database, application: "tapwire-findings", state: "active", waitingOnALock: true),
                "the monitor's scan did not wait for the test's lock past the server's timeouts")
        let held = checks()
        try lock.query("COMMIT")
        #expect(eventually(timeout: 60) { checks() > held }, "the scan completes once let go")
        let errors = collector.logs.capturedLines.filter { $0.contains("findings: database error") }
        #expect(errors.isEmpty, "\(errors)")
    }

    /// A report whose read the database cancels at the operator's `lock_timeout` (the test holds
    /// the engagement totals' table, which a report reads and a fold with nothing pending does
    /// not write) is answered 503 `database_timeout` with Retry-After, not 500; let go, the same
    /// request answers 200. The holder's own `idle_in_transaction_session_timeout` (30 s) ends its
    /// lock whatever happens, so the test cannot hang on it.
    @Test func aReportCutByTheServersLockTimeoutIsA503() throws {
        let database = try Self.database(with: ["lock_timeout"])
        let collector = try FoldSharesTests.collector(database, connections: 3)
        defer { collector.stop() }
        let app = try collector.database.createApp()
        try FoldSharesTests.post(FoldSharesTests.batches(seed: 43), to: collector, key: app.writeKey.text)
        // Everything posted is folded before the lock: this report waits for that fold.
        _ = try FoldSharesTests.collectorFigures(collector, key: app.readKey.text)
        #expect(try FoldSharesTests.queued(collector, app: app) == ["0", "0", "0"])

        let lock = try Self.lockHolder(database)
        defer { lock.close() }
        try lock.executeScript("BEGIN; SET LOCAL idle_in_transaction_session_timeout = '30s'; LOCK TABLE rollup_totals IN ACCESS EXCLUSIVE MODE")
        let range = "from=\(FoldSharesTests.start.iso8601(fractionDigits: 0))&to=\(FoldSharesTests.end.iso8601(fractionDigits: 0))&tz=UTC"
        let cut = try collector.client().get("/v1/reports/engagement?format=json&" + range, key: app.readKey.text)
        #expect(cut.status == 503, "\(cut.text.prefix(300))")
        #expect(cut.json?["error"]?["code"]?.stringValue == "database_timeout")
        #expect(cut.headers["retry-after"] == "1")
        try lock.query("COMMIT")
        let again = try collector.client().get("/v1/reports/engagement?format=json&" + range, key: app.readKey.text)
        #expect(again.status == 200, "\(again.text.prefix(300))")
    }
}
