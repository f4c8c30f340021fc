import Foundation
import Synchronization
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// A migration that deadlocks with a running collector's commit (a rolling upgrade: the previous
/// release keeps writing while this one migrates; seen as 40P01 in migration 0150 against it in
/// MixedFleetTests) is run again, not failed. Made to happen on purpose here: another session
/// holds the table the migration's second statement locks, then asks for the one its first
/// statement locked. That session's deadlock check waits a minute, the migration's the default
/// second, so it is always the migration's transaction that PostgreSQL aborts.
@Suite struct MigratorRetryTests {
    @Test func aMigrationThatLosesADeadlockIsRunAgain() throws {
        let db = try TestDatabase.create()
        let holder = try db.connect()
        defer { holder.close() }
        try holder.query("CREATE TABLE probe_a (x int)")
        try holder.query("CREATE TABLE probe_b (x int)")
        try holder.query("SET deadlock_timeout = '60s'")
        try holder.query("BEGIN")
        try holder.query("LOCK TABLE probe_a IN ACCESS EXCLUSIVE MODE")

        let migration = TapwireStore.EmbeddedMigration(
            version: 99_001, name: "99001_deadlock_probe",
            sql: "LOCK TABLE probe_b IN ACCESS EXCLUSIVE MODE;\nLOCK TABLE probe_a IN ACCESS EXCLUSIVE MODE;\nCREATE TABLE probe_done (x int);\n",
            file: "MigratorRetryTests")
        let sink = LogSink.memory()
        let outcome = Mutex<Result<[Migrator.Applied], DatabaseError>?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let url = db.url
        Thread {
            defer { finished.signal() }
            let result = Result { () throws(DatabaseError) in
                let migrating = try PostgresConnection(url: url)
                defer { migrating.close() }
                return try Migrator(migrations: [migration]).migrate(migrating, logger: Logger(label: "test", sink: sink))
            }
            outcome.withLock { $0 = result }
        }.start()

        // The migration holds probe_b and waits for probe_a; then the holder asks for probe_b.
        let waiting = eventually(timeout: 60) {
            (try? holder.query("""
                SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'probe_a' AND NOT l.granted
                """).scalar) == "1"
        }
        #expect(waiting, "the migration never waited for probe_a")
        try holder.query("LOCK TABLE probe_b IN ACCESS EXCLUSIVE MODE") // granted once the migration's transaction is aborted
        try holder.query("COMMIT")
        #expect(finished.wait(timeout: .now() + 60) == .success)

        let result = try #require(outcome.withLock { $0 })
        #expect(try result.get() == [Migrator.Applied(version: 99_001, name: "99001_deadlock_probe")])
        let retried = sink.capturedLines.filter { $0.contains("migration lost a lock race") }
        #expect(retried.count == 1, "\(sink.capturedLines)")
        #expect(retried.first?.contains("40P01") == true, "\(retried)")
        #expect(try holder.query("SELECT to_regclass('probe_done') IS NOT NULL").scalar == "t")
        #expect(try holder.query("SELECT count(*) FROM schema_migrations WHERE version = 99001").scalar == "1")
    }
}
