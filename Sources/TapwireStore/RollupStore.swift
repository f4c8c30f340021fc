import TapwireCore

/// The rollups' upkeep. Group commits append what their events add (`RollupDeltas`) to
/// rollup_delta_batches, a row of arrays per commit and app; `fold` sums the pending batches
/// here and writes each key once into the rollup tables (migrations 0050 and 0060).
///
/// `tapwire rollups rebuild` recomputes the rollups of a range from events in SQL, one UTC day
/// per transaction: it stages the day's events and runs sql/fresh/, an independent definition
/// of every aggregate that the tests and the soak hold equal to `RollupDeltas`. Each transaction
/// locks the rollup tables and the pending deltas against group commits (not against reports)
/// and folds first, so no commit can fall between delete and recompute.
public struct RollupStore: Sendable {
    public struct Progress: Sendable, Equatable {
        public var from: Timestamp
        public var to: Timestamp
        /// The raw events the day's rollups were recomputed from.
        public var eventsRecomputed: Int
    }

    public init() {}

    /// Moves every pending delta into the rollup tables, in its own transaction; returns the
    /// deltas moved. Readers that must count every acknowledged event call it first.
    @discardableResult
    public func fold(on connection: PostgresConnection) throws(DatabaseError) -> Int {
        try connection.transaction { () throws(DatabaseError) -> Int in try foldPending(on: connection) }
    }

    /// The fold, inside the caller's transaction: takes the pending batches (deleting them),
    /// sums their deltas per key, and has tapwire_fold_rollup_deltas() upsert the sums together
    /// with any row a collector of the previous version appended to rollup_deltas. Summing here
    /// is what keeps the fold cheap: the database sorts and upserts each key once per fold, not
    /// once per commit that touched it.
    private func foldPending(on connection: PostgresConnection) throws(DatabaseError) -> Int {
        var reader = RollupDeltaRows.BatchReader()
        try connection.copyOut(EmbeddedSQL.takeRollupDeltaBatches) { (piece) throws(DatabaseError) in try reader.consume(piece) }
        let sums = try reader.finish()
        let taken = reader.deltasRead
        if sums.rowCount > 0 { try connection.copyIn(EmbeddedSQL.copyRollupDeltas, data: RollupDeltaRows.encodeRows(sums)) }
        let upserted = Int(try connection.query(EmbeddedSQL.foldRollupDeltas).scalar ?? "0") ?? 0
        return taken + upserted - sums.rowCount
    }

    /// The fold a reader does first. A role that may not write (a read-only one, as Grafana's)
    /// reads without it, at most one background fold behind, rather than failing.
    public func foldBeforeReading(on connection: PostgresConnection) throws(DatabaseError) {
        do {
            try fold(on: connection)
        } catch where error.sqlState == "42501" || error.sqlState == "25006" {
            // insufficient_privilege, read_only_sql_transaction
        }
    }

    /// The whole hours that hold events of the app (or of every app), or nil when there are none.
    public func eventHours(appId: Int64?, on connection: PostgresConnection) throws(DatabaseError) -> (from: Timestamp, to: Timestamp)? {
        let row = try connection.query(EmbeddedSQL.rollupsEventRange, [appId.map(String.init)]).rows.first
        guard let row, let from = PostgresValue.timestamp(row[0]), let to = PostgresValue.timestamp(row[1]) else { return nil }
        return (from, to)
    }

    /// Rebuilds [from, to) widened to whole UTC days (the daily grain of rollup_actions and
    /// rollup_histograms is only right for a whole day). Returns one entry per day rebuilt.
    @discardableResult
    public func rebuild(appId: Int64?, from: Timestamp, to: Timestamp, on connection: PostgresConnection,
                        progress: (Progress) -> Void = { _ in }) throws(DatabaseError) -> [Progress] {
        let hour: Int64 = 3_600_000_000
        let day: Int64 = 24 * hour
        let start = Self.floor(from.microseconds, day)
        let end = -Self.floor(-to.microseconds, day)
        // Before the retention horizon the rollups are all that is left of the events:
        // recomputing them from events would erase them.
        if let horizon = PostgresValue.timestamp(try connection.query(EmbeddedSQL.retentionHorizon).scalar), start < horizon.microseconds {
            throw DatabaseError(.queryFailed, "raw events before \(horizon.iso8601(fractionDigits: 0)) were dropped by `tapwire retention`; rebuilding from \(Timestamp(microseconds: start).iso8601(fractionDigits: 0)) would erase the rollups that still count them. Rebuild from \(horizon.iso8601(fractionDigits: 0)) on (--from)")
        }
        var done: [Progress] = []
        var chunkStart = start
        while chunkStart < end {
            let chunkEnd = min(end, Self.floor(chunkStart, day) + day)
            let parameters = [appId.map(String.init), Timestamp(microseconds: chunkStart).iso8601(fractionDigits: 6),
                              Timestamp(microseconds: chunkEnd).iso8601(fractionDigits: 6)]
            var attempt = 0
            while true {
                do {
                    try connection.query(EmbeddedSQL.createStaging)
                    let staged = try connection.transaction { () throws(DatabaseError) -> Int in
                        try connection.query(EmbeddedSQL.rollupsRebuildLock)
                        try foldPending(on: connection)
                        try connection.query(EmbeddedSQL.rollupsRebuildDelete, parameters)
                        let staged = try connection.query(EmbeddedSQL.rollupsRebuildStage, parameters).affectedRows
                        if staged > 0 {
                            for statement in EmbeddedSQL.freshRowStatements { try connection.query(statement.sql) }
                        }
                        return staged
                    }
                    let written = staged
                    let step = Progress(from: Timestamp(microseconds: chunkStart), to: Timestamp(microseconds: chunkEnd), eventsRecomputed: written)
                    done.append(step)
                    progress(step)
                    break
                } catch {
                    attempt += 1
                    if error.isTransientConflict, attempt < 4 { continue }
                    throw error
                }
            }
            chunkStart = chunkEnd
        }
        return done
    }

    static func floor(_ value: Int64, _ unit: Int64) -> Int64 {
        value >= 0 ? value / unit * unit : -((-value + unit - 1) / unit) * unit
    }
}
