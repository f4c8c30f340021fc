import Foundation
import Testing
import TapwireCore
@testable import TapwireStore
import TapwireTestSupport

/// `PostgresConnection.closedWhileIdle()`: a connection the server ended while it sat idle
/// between transactions (`idle_session_timeout`, `pg_terminate_backend` as a restart does) is
/// told apart, without a round trip, from one that is fine (docs/deployment.md, "The server's
/// timeouts"). Deterministic: each test waits until the session has left pg_stat_activity (the
/// server sends its FATAL before the session leaves), never on a sleep racing the timeout.
@Suite struct ClosedWhileIdleTests {
    /// Whether the session `pid` has left pg_stat_activity.
    static func gone(_ database: TestDatabase, pid: Int32) -> Bool {
        eventually(timeout: 30) {
            (try? database.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", [String(pid)]).scalar) == "0"
        }
    }

    @Test func aSessionEndedByIdleSessionTimeoutIsToldClosed() throws {
        let database = try TestDatabase.create()
        try database.query("ALTER DATABASE \(database.name) SET idle_session_timeout = '300ms'")
        let connection = try database.connect()
        defer { connection.close() }
        #expect(try connection.query("SELECT 1").scalar == "1")
        #expect(Self.gone(database, pid: connection.backendPID), "the server did not end the idle session")
        #expect(connection.isUsable, "libpq has not read the server's FATAL yet")
        #expect(connection.closedWhileIdle())
        #expect(!connection.isUsable)
    }

    @Test func aSessionTerminatedByTheServerIsToldClosed() throws {
        let database = try TestDatabase.create()
        let connection = try database.connect()
        defer { connection.close() }
        #expect(try connection.query("SELECT 1").scalar == "1")
        #expect(try database.query("SELECT pg_terminate_backend($1)", [String(connection.backendPID)]).scalar == "t")
        #expect(Self.gone(database, pid: connection.backendPID))
        #expect(connection.closedWhileIdle())
        #expect(!connection.isUsable)
    }

    /// A session the server ended while it sat idle inside its open transaction (a
    /// `TransactionLock`'s, which holds the lock by that transaction) is told closed too.
    @Test func aSessionEndedIdleInItsTransactionIsToldClosed() throws {
        let database = try TestDatabase.create()
        let connection = try database.connect()
        defer { connection.close() }
        try connection.query("BEGIN")
        #expect(try connection.query("SELECT pg_try_advisory_xact_lock(7358999)").scalar == "t")
        #expect(!connection.closedWhileIdle())
        #expect(try database.query("SELECT pg_terminate_backend($1)", [String(connection.backendPID)]).scalar == "t")
        #expect(Self.gone(database, pid: connection.backendPID))
        #expect(connection.closedWhileIdle())
        #expect(!connection.isUsable)
    }

    /// A healthy idle connection, with or without something the server sent unasked (a NOTIFY
    /// it listens to), is not closed, and stays usable.
    @Test func aHealthyConnectionIsNotClosed() throws {
        let database = try TestDatabase.create()
        let connection = try database.connect()
        defer { connection.close() }
        try connection.query("LISTEN tapwire_test_idle")
        #expect(!connection.closedWhileIdle())
        try database.query("NOTIFY tapwire_test_idle")
        #expect(!connection.closedWhileIdle())
        #expect(connection.isUsable)
        #expect(try connection.query("SELECT 1").scalar == "1")
        try connection.query("UNLISTEN *")
    }
}
