import TapwireCore

/// A loop's own connection (a reader thread's, the fold's, a fold share's, the findings
/// monitor's): opened by the first unit of work, and opened again before the next one when the
/// last left it broken or the server closed it while it sat idle, so a quiet spell or a restart
/// costs a new connection, not a failed unit of work. Owned by the loop's thread; never shared.
public struct LoopConnection {
    /// The connection's application name, also its name in logs and metrics.
    public let name: String
    private let watch: IdleConnectionWatch
    private let open: () throws(DatabaseError) -> PostgresConnection
    private var current: PostgresConnection?

    /// `open` makes a new connection (with its application name and server timeouts).
    public init(name: String, watch: IdleConnectionWatch, open: @escaping () throws(DatabaseError) -> PostgresConnection) {
        self.name = name
        self.watch = watch
        self.open = open
    }

    /// The connection for the next unit of work: the one kept, unless it broke or was closed
    /// by the server while idle, else a new one.
    public mutating func ready() throws(DatabaseError) -> PostgresConnection {
        if let kept = current {
            if !watch.closed(kept, name: name), kept.isUsable { return kept }
            close()
        }
        let made = try open()
        current = made
        return made
    }

    /// Closes the connection now if the last unit of work left it broken (its server slot is
    /// freed before the next unit of work comes).
    public mutating func closeIfBroken() {
        if let kept = current, !kept.isUsable { close() }
    }

    /// Closes the connection; the next `ready` opens another.
    public mutating func close() {
        current?.close()
        current = nil
    }
}
