import Foundation
import Synchronization
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// Work outside the collector's background fold that must not be cut by the server's timeouts
/// an operator sets per role or database (docs/deployment.md, "The server's timeouts"): a
/// reader's own fold (`tapwire report`, a collector reader the shared fold could not serve) and
/// a rebuild's day. With `statement_timeout`, `lock_timeout` and
/// `idle_in_transaction_session_timeout` of 200 ms on the database, each is held by the test's
/// lock on rollup_delta_batches until its session has waited a second for it (five times the
/// timeouts, read in pg_stat_activity: no sleep races them), then let go: it completes. Keeping
/// the operator's timeouts, the server cancels its statement at 200 ms and it never waits that long.
@Suite(.serialized) struct ServerTimeoutsStoreTests {
    static let application = "tapwire-test-timeouts"

    static func timedDatabase() throws -> TestDatabase {
        let database = try TestDatabase.create()
        for setting in ["statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"] {
            try database.query("ALTER DATABASE \(database.name) SET \(setting) = '200ms'")
        }
        return database
    }

    /// Runs `work` on a thread of its own, on a connection of `database` (as an operator's
    /// command would connect, with the database's timeouts), while the test holds `hold`'s lock
    /// (by default rollup_delta_batches'); lets go once `work` has waited a second for the lock.
    /// Returns whether it waited that long, and how `work` ended.
    /// `whileHeld` runs once it has waited, before the test lets go.
    static func heldPastTheTimeouts(_ database: TestDatabase, hold: String = "LOCK TABLE rollup_delta_batches IN ACCESS EXCLUSIVE MODE",
                                    whileHeld: () throws -> Void = {},
                                    _ work: @escaping @Sendable (PostgresConnection) throws -> Void) throws -> (waited: Bool, failure: String?) {
        let lock = try database.connect()
        defer { lock.close() }
        try lock.executeScript("SET statement_timeout = 0; SET lock_timeout = 0; SET idle_in_transaction_session_timeout = 0")
        try lock.query("BEGIN")
        try lock.query(hold)
        let outcome = Mutex<String??>(nil)
        let done = DispatchSemaphore(value: 0)
        let url = database.url
        Thread {
            let failure: String?
            do {
                let connection = try PostgresConnection(url: url, applicationName: Self.application)
                defer { connection.close() }
                try work(connection)
                failure = nil
            } catch {
                failure = "\(error)"
            }
            outcome.withLock { $0 = .some(failure) }
            done.signal()
        }.start()
        let waited = eventually(timeout: 30) {
            (try? database.query("""
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = $1 AND wait_event_type = 'Lock'
                AND clock_timestamp() - state_change > interval '1 second'
                """, [Self.application]).scalar) == "1"
        }
        if waited { try whileHeld() }
        try lock.query("COMMIT")
        done.wait()
        return (waited, outcome.withLock { $0 } ?? "no outcome")
    }

    @Test func aReadersOwnFoldWaitsPastTheServersTimeouts() throws {
        let database = try Self.timedDatabase()
        let (waited, failure) = try Self.heldPastTheTimeouts(database) { connection in
            try OwnFold().foldBeforeReading(on: connection)
        }
        #expect(waited, "the fold did not wait for the test's lock past the server's timeouts")
        #expect(failure == nil)
    }

    @Test func aRebuildsDayWaitsPastTheServersTimeouts() throws {
        let database = try Self.timedDatabase()
        let (waited, failure) = try Self.heldPastTheTimeouts(database) { connection in
            let now = Timestamp.now
            let days = try RollupStore().rebuild(appId: nil, from: now.adding(seconds: -86_400), to: now, on: connection)
            #expect(days.count == 2)
        }
        #expect(waited, "the rebuild's day did not wait for the test's lock past the server's timeouts")
        #expect(failure == nil)
    }

    /// `tapwire retention`'s first trim (conversion credits past the horizon) waits for the
    /// test's lock on `conversion_credits` past the server's timeouts, while the run's own lock
    /// (`TransactionLock`, a transaction left idle for the run) stays idle in its transaction
    /// past `idle_in_transaction_session_timeout`; let go, the run completes and held its lock
    /// throughout.
    @Test func retentionsTrimWaitsPastTheServersTimeouts() throws {
        let database = try Self.timedDatabase()
        let (waited, failure) = try Self.heldPastTheTimeouts(database, hold: "LOCK TABLE conversion_credits IN SHARE MODE", whileHeld: { () throws in
            // The run's lock: its session idle in its transaction for over a second, still there.
            #expect(try database.query("""
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = 'tapwire-lock' AND state = 'idle in transaction'
                AND clock_timestamp() - state_change > interval '1 second'
                """).scalar == "1", "the retention run's lock was ended while idle in its transaction")
        }) { connection in
            let outcome = try RetentionStore().run(try RetentionPolicy(keepSeconds: 400 * 86_400), dryRun: false, on: connection)
            #expect(outcome.ran)
        }
        #expect(waited, "retention's trim did not wait for the test's lock past the server's timeouts")
        #expect(failure == nil)
    }

    /// A migration waits for its turn on the migrations' lock (held here as another process's
    /// migration would) past the server's timeouts, then runs its statements with the operator's
    /// `lock_timeout` back and no `statement_timeout`.
    @Test func aMigrationWaitsForItsTurnPastTheServersTimeoutsThenKeepsTheOperatorsLockTimeout() throws {
        let database = try Self.timedDatabase()
        let migration = TapwireStore.EmbeddedMigration(
            version: 99_002, name: "99002_timeouts_probe",
            sql: "CREATE TABLE timeouts_probe AS SELECT current_setting('lock_timeout') AS lock_timeout, current_setting('statement_timeout') AS statement_timeout;\n",
            file: "ServerTimeoutsStoreTests")
        let (waited, failure) = try Self.heldPastTheTimeouts(database, hold: "SELECT pg_advisory_xact_lock(7358000)") { connection in
            try Migrator(migrations: [migration]).migrate(connection)
        }
        #expect(waited, "the migration did not wait for its turn past the server's timeouts")
        #expect(failure == nil)
        #expect(try database.query("SELECT lock_timeout, statement_timeout FROM timeouts_probe").rows == [["200ms", "0"]])
    }
}
