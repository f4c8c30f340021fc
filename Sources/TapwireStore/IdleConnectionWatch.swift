import TapwireCore

/// Where the collector's loops say that the server closed a connection while it sat idle
/// (`idle_session_timeout`, a pooler's client timeout, `pg_terminate_backend`, a restart) before
/// they replace it: logged at info with the connection's name, never its URL, and counted, so an
/// operator sees how often sessions are ended under the collector (the collector's
/// `tapwire_database_connections_replaced_total`; docs/deployment.md, "The server's timeouts").
public struct IdleConnectionWatch: Sendable {
    private let logger: Logger?
    private let counted: @Sendable (_ connection: String) -> Void

    /// `counted`: called with the connection's name each time one is replaced.
    public init(logger: Logger?, counted: @escaping @Sendable (_ connection: String) -> Void = { _ in }) {
        self.logger = logger
        self.counted = counted
    }

    /// Whether the server closed `connection` while it sat idle (`closedWhileIdle`), said once
    /// here when it did; the caller replaces it.
    public func closed(_ connection: PostgresConnection, name: String) -> Bool {
        guard connection.closedWhileIdle() else { return false }
        logger?.info("database connection closed by the server while idle; replacing it", ["connection": .string(name)])
        counted(name)
        return true
    }

    /// Replaces `connection` in place (the same database, name and settings) when the server
    /// closed it while it sat idle: for a connection its caller does not own, such as the one
    /// a reader was handed for a request.
    public func reconnectIfClosed(_ connection: PostgresConnection, name: String) throws(DatabaseError) {
        if closed(connection, name: name) { try connection.reconnect() }
    }
}
