import TapwireCore

/// An advisory lock held by a transaction left open on a connection of its own, for work that
/// spans many transactions of another connection (retention, whose DETACH … CONCURRENTLY cannot
/// run in a transaction block). A session lock would not do behind a transaction pooler: its
/// unlock may reach another server session and leave it held. An open transaction keeps its
/// server session, and ends with the process: the server rolls it back when the connection drops.
public final class TransactionLock {
    private var connection: PostgresConnection?

    private init(_ connection: PostgresConnection) { self.connection = connection }

    /// Opens a connection beside `neighbour`, begins a transaction and runs `attempt` (a
    /// `pg_try_advisory_xact_lock`); nil when another session holds the lock.
    public static func tryAcquire(_ attempt: SQL, beside neighbour: PostgresConnection) throws(DatabaseError) -> TransactionLock? {
        // Idle in its transaction for the whole run by design: the server's
        // idle_in_transaction_session_timeout would end it, and the lock with it, mid-run.
        let connection = try neighbour.connectAgain(applicationName: "tapwire-lock", serverTimeouts: .off)
        do {
            try connection.begin()
            guard try connection.query(attempt).value(Bool.self) else {
                connection.close()
                return nil
            }
        } catch {
            connection.close()
            throw error
        }
        return TransactionLock(connection)
    }

    /// Whether the lock is still held: its session is still there, idle in its transaction. The
    /// server may end that session (`pg_terminate_backend`, a restart, a failover, a network
    /// cut), and the lock with it, while the work it guards runs on another connection; that
    /// work asks between steps, without a round trip (`closedWhileIdle`), and stops.
    public var isHeld: Bool {
        guard let connection, !connection.closedWhileIdle() else { return false }
        return connection.isUsable
    }

    /// Ends the transaction, and with it the lock. Called again, it does nothing.
    public func release() {
        if let connection, connection.isUsable { connection.rollback() }
        connection?.close()
        connection = nil
    }

    deinit { release() }
}
