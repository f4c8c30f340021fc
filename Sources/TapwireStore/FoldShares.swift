import TapwireCore

/// One fold of the rollups with its shares at once, each in its own transaction on its own
/// connection (docs/ingestion.md, "The fold's shares"): the engagement deltas on the caller's
/// connection, the others on `FoldShareWorker`s, threads whose connections are kept from fold to
/// fold. The deltas' transaction applies the strata changes to the conversions once the others
/// have committed, then commits last. With one connection the fold is one transaction
/// (`RollupStore.fold`). The collector's background fold folds with it (`RollupFolder`), and so
/// does `tapwire-bench`'s round, so what the collector has not folded when a round ends is
/// folded as the collector folds it, not on one connection.
public final class FoldShares: Sendable {
    /// The most connections a fold uses: the deltas' and one per part of attribution's queue.
    public static let maxConnections = 1 + AttributionPart.count

    /// The shares run beside the deltas', one worker (thread and connection) each; none when
    /// the fold runs in one transaction.
    private let workers: [(worker: FoldShareWorker, share: FoldShareWorker.Share)]

    /// `connections`: 1, one transaction on the caller's connection; 2, attribution (every part)
    /// and the holdouts beside the deltas; up to `maxConnections`, one share per part of
    /// attribution's queue (`otherShares`). The workers' connections are named
    /// `applicationName` and their share's name.
    /// `watch`: where a worker says it replaced a connection the server closed while it sat idle.
    public init(databaseURL: String, connections: Int, applicationName: String = "tapwire-rollup-fold",
                watch: IdleConnectionWatch = IdleConnectionWatch(logger: nil)) {
        workers = Self.otherShares(connections: connections).map {
            (FoldShareWorker(databaseURL: databaseURL, applicationName: applicationName + "-" + $0.name, watch: watch), $0.share)
        }
    }

    /// The shares run beside the deltas' with `connections`: none with 1; attribution (every
    /// part of each app's queue) and the holdouts with 2; with more, one per part of the queue
    /// (migration 0328), the holdouts in part 0's, so two cores attribute one app after a burst.
    static func otherShares(connections: Int) -> [(name: String, share: FoldShareWorker.Share)] {
        guard connections > 1 else { return [] }
        guard connections > 2 else {
            return [("attribution", { (connection) throws(DatabaseError) in try RollupStore().foldAttributionShare(part: nil, on: connection) })]
        }
        return (0..<AttributionPart.count).map { part in
            ("attribution-\(part)", { (connection) throws(DatabaseError) in try RollupStore().foldAttributionShare(part: part, on: connection) })
        }
    }

    /// Starts the workers' threads (their connections open with their first share).
    public func start() { workers.forEach { $0.worker.start() } }

    /// Stops the workers once each has ended the share begun last, and closes their connections.
    public func stop() { workers.forEach { $0.worker.stop() } }

    /// One fold: the others begun on their workers, the deltas' on `connection`, which waits for
    /// them before it applies the strata changes and commits. Fails if any share failed, once
    /// every one has ended (the next fold starts with none running). Returns the deltas moved.
    public func fold(on connection: PostgresConnection) throws(DatabaseError) -> Int {
        guard !workers.isEmpty else { return try RollupStore().fold(on: connection) }
        let workers = self.workers
        for (worker, share) in workers { worker.begin(share) }
        var outcomes: [Result<Void, DatabaseError>]?
        let joinOthers = { if outcomes == nil { outcomes = workers.map { $0.worker.finish() } } }
        let moved: Result<Int, DatabaseError>
        do throws(DatabaseError) {
            moved = .success(try RollupStore().foldDeltasShare(on: connection, others: joinOthers))
        } catch {
            moved = .failure(error)
        }
        joinOthers()
        let rows = try moved.get()
        for case .failure(let error) in outcomes ?? [] { throw error }
        return rows
    }
}
