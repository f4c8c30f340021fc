import TapwireStore

/// Ready when a database thread gets an answer to `SELECT 1` and the writers are connected.
public struct DatabaseReadiness: ReadinessProbe {
    public let database: DatabaseExecutor
    public let committer: GroupCommitter

    public init(database: DatabaseExecutor, committer: GroupCommitter) {
        self.database = database
        self.committer = committer
    }

    public func check() async -> (ready: Bool, queuedEvents: Int) {
        let ping = await database.perform { (connection) throws(DatabaseError) in try connection.query(EmbeddedSQL.ping).scalar }
        guard case .success = ping, committer.isDatabaseAvailable else { return (false, committer.queuedEvents) }
        return (true, committer.queuedEvents)
    }
}
