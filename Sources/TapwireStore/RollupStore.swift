import TapwireCore

/// The rollups' upkeep. Group commits append what their events add (`RollupDeltas`) to
/// rollup_delta_batches, a row of arrays per commit and app; `fold` sums the pending batches
/// here and writes each key once into the rollup tables (migrations 0050 and 0060).
///
/// `tapwire rollups rebuild` recomputes the rollups of a range from events, one UTC day per
/// transaction, with the same code: it streams the day's events back (binary `COPY … TO STDOUT`)
/// through `RollupDeltas`, so one definition of every aggregate serves the commits and the
/// rebuild. Each transaction locks the rollup tables and the pending deltas against group
/// commits (not against reports) and folds first, so no commit can fall between delete and
/// recompute. The SQL recomputation of sql/fresh/ is kept apart, as the tests' and the soak's
/// independent oracle (Sources/TapwireRollupOracle).
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

    /// Apps whose pending batches a fold takes, sums and upserts at once. One app's keys are few;
    /// fifty apps' made the collector's peak RSS 95-130 MiB (docs/ingestion.md, "Many apps on
    /// one collector").
    static let foldAppsAtOnce = 8

    /// The fold, inside the caller's transaction: takes the pending batches (deleting them) of
    /// a few apps at a time, sums their deltas per key, and has tapwire_fold_rollup_deltas()
    /// upsert the sums together with any row a collector of the previous version appended to
    /// rollup_deltas. Summing here is what keeps the fold cheap: the database sorts and upserts
    /// each key once per fold, not once per commit that touched it (a key belongs to one app).
    package func foldPending(on connection: PostgresConnection) throws(DatabaseError) -> Int {
        let apps = try connection.query(EmbeddedSQL.pendingDeltaApps).rows.compactMap { $0.first ?? nil }
        guard !apps.isEmpty else { return try upsert(RollupDeltas(), on: connection) }
        var moved = 0
        for start in stride(from: 0, to: apps.count, by: Self.foldAppsAtOnce) {
            try connection.query(EmbeddedSQL.foldApps, [apps[start..<min(apps.count, start + Self.foldAppsAtOnce)].joined(separator: ",")])
            var reader = RollupDeltaRows.BatchReader()
            try connection.copyOut(EmbeddedSQL.takeRollupDeltaBatches) { (piece) throws(DatabaseError) in try reader.consume(piece) }
            let sums = try reader.finish()
            moved += reader.deltasRead + (try upsert(sums, on: connection)) - sums.rowCount
        }
        return moved
    }

    /// Writes summed rows into the rollup tables, each key once, in key order: through
    /// rollup_deltas and tapwire_fold_rollup_deltas(), which also takes any row a collector of the
    /// previous version appended there. Returns the rows it upserted.
    private func upsert(_ sums: RollupDeltas, on connection: PostgresConnection) throws(DatabaseError) -> Int {
        if sums.rowCount > 0 { try connection.copyIn(EmbeddedSQL.copyRollupDeltas, data: RollupDeltaRows.encodeRows(sums)) }
        return Int(try connection.query(EmbeddedSQL.foldRollupDeltas).scalar ?? "0") ?? 0
    }

    /// The fold a reader does first. A role that may not write (a read-only one, as Grafana's)
    /// reads without it, at most one background fold behind, rather than failing.
    public func foldBeforeReading(on connection: PostgresConnection) throws(DatabaseError) {
        do {
            try fold(on: connection)
        } catch where error.isNotWritable {
            // A read-only role or a standby: read what the background fold has folded.
        }
    }

    /// The whole hours that hold events of the app (or of every app), or nil when there are none.
    public func eventHours(appId: Int64?, on connection: PostgresConnection) throws(DatabaseError) -> (from: Timestamp, to: Timestamp)? {
        let row = try connection.query(EmbeddedSQL.rollupsEventRange, [appId.map(String.init)]).rows.first
        guard let row, let from = PostgresValue.timestamp(microseconds: row[0]), let to = PostgresValue.timestamp(microseconds: row[1]) else { return nil }
        return (from, to)
    }

    /// Rebuilds [from, to) widened to whole UTC days (the daily grain of rollup_actions and
    /// rollup_histograms is only right for a whole day). Returns one entry per day rebuilt.
    @discardableResult
    public func rebuild(appId: Int64?, from: Timestamp, to: Timestamp, on connection: PostgresConnection,
                        progress: (Progress) -> Void = { _ in }) throws(DatabaseError) -> [Progress] {
        let days = try forEachDay(appId: appId, from: from, to: to, on: connection, progress: progress) { (parameters) throws(DatabaseError) -> Int in
            var reader = EventRowReader()
            try connection.copyOut(built: EmbeddedSQL.rollupsRebuildEvents, parameters) { (piece) throws(DatabaseError) in try reader.consume(piece) }
            _ = try upsert(try reader.finish(), on: connection)
            return reader.eventsRead
        }
        // Reports fold first, and a fold scans rollup_deltas: leave it small, not full of the
        // rebuild's dead rows until autovacuum comes by.
        try connection.query(EmbeddedSQL.rollupsVacuumDeltas)
        return days
    }

    /// Runs `recompute` for each UTC day of [from, to) (widened to whole days), each in its own
    /// transaction that first locks the rollups and the pending deltas against group commits,
    /// folds, and deletes the day's rollups (of the app, or of every app). `recompute` gets the
    /// parameters (app or NULL, day start, day end) and returns how many events it read. A
    /// transaction that loses a lock race is retried. Days go from the last to the first, so
    /// each moves back where the quarter-hour grain is complete (rollups_quarter_coverage.sql)
    /// by a day; the result lists them first to last.
    package func forEachDay(appId: Int64?, from: Timestamp, to: Timestamp, on connection: PostgresConnection,
                            progress: (Progress) -> Void,
                            recompute: ([String?]) throws(DatabaseError) -> Int) throws(DatabaseError) -> [Progress] {
        let hour: Int64 = 3_600_000_000
        let day: Int64 = 24 * hour
        let start = RollupDeltas.floor(from.microseconds, day)
        let end = -RollupDeltas.floor(-to.microseconds, day)
        // Before the retention horizon the rollups are all that is left of the events:
        // recomputing them from events would erase them.
        if let horizon = PostgresValue.timestamp(microseconds: try connection.query(EmbeddedSQL.retentionHorizon).scalar), start < horizon.microseconds {
            throw DatabaseError(.queryFailed, "raw events before \(horizon.iso8601(fractionDigits: 0)) were dropped by `tapwire retention`; rebuilding from \(Timestamp(microseconds: start).iso8601(fractionDigits: 0)) would erase the rollups that still count them. Rebuild from \(horizon.iso8601(fractionDigits: 0)) on (--from)")
        }
        var done: [Progress] = []
        var chunkEnd = end
        while chunkEnd > start {
            let chunkStart = max(start, chunkEnd - day)
            let parameters = [appId.map(String.init), Timestamp(microseconds: chunkStart).iso8601(fractionDigits: 6),
                              Timestamp(microseconds: chunkEnd).iso8601(fractionDigits: 6)]
            var attempt = 0
            while true {
                do {
                    let events = try connection.transaction { () throws(DatabaseError) -> Int in
                        try connection.query(EmbeddedSQL.rollupsRebuildLock)
                        _ = try foldPending(on: connection)
                        try connection.query(EmbeddedSQL.rollupsRebuildDelete, parameters)
                        let events = try recompute(parameters)
                        try connection.query(EmbeddedSQL.rollupsQuarterCoverage, parameters)
                        return events
                    }
                    let step = Progress(from: Timestamp(microseconds: chunkStart), to: Timestamp(microseconds: chunkEnd), eventsRecomputed: events)
                    done.append(step)
                    progress(step)
                    break
                } catch {
                    attempt += 1
                    if error.isTransientConflict, attempt < 4 { continue }
                    throw error
                }
            }
            chunkEnd = chunkStart
        }
        return done.reversed()
    }

}

/// Reads the rows of sql/queries/rollups_rebuild_events.sql, piece by piece as COPY sends them,
/// into `RollupDeltas`: the rebuild's and the report's edge minutes' side of the one definition
/// of every aggregate.
struct EventRowReader {
    private var decoder = CopyBinaryDecoder()
    private var deltas = RollupDeltas()
    private(set) var eventsRead = 0

    mutating func consume(_ data: [UInt8]) throws(DatabaseError) {
        decoder.append(data)
        while let fields = try decoder.nextRow() {
            guard fields.count == 14 else { throw DatabaseError(.unexpectedResult, "a rebuild event row of \(fields.count) columns, not 14") }
            func required(_ index: Int) throws(DatabaseError) -> ArraySlice<UInt8> {
                guard let field = fields[index] else { throw DatabaseError(.unexpectedResult, "a rebuild event row with column \(index + 1) NULL") }
                return field
            }
            func optional<T>(_ index: Int, _ decode: (ArraySlice<UInt8>) throws(DatabaseError) -> T) throws(DatabaseError) -> T? {
                guard let field = fields[index] else { return nil }
                return try decode(field)
            }
            guard let type = EventType(rawValue: BinaryValues.text(try required(2))) else {
                throw DatabaseError(.unexpectedResult, "a rebuild event of an unknown type")
            }
            let time = try BinaryValues.timestamp(try required(1))
            // Only what the rollups read: the id and the device's own time play no part.
            let event = Event(eventId: EventID(high: 0, low: 0), type: type, deviceTime: time, eventTime: time,
                              category: BinaryValues.text(try required(3)), actionIdentifier: try optional(4, BinaryValues.text),
                              userTextLength: try optional(5, BinaryValues.int32), hasMedia: try BinaryValues.bool(try required(6)),
                              mediaRequested: try optional(7, BinaryValues.bool), categoryRegistered: try optional(8, BinaryValues.bool),
                              campaign: try optional(9, BinaryValues.text), variant: try optional(10, BinaryValues.text),
                              deliveredAt: try optional(11, BinaryValues.timestamp))
            let context = DeviceContext(appVersion: BinaryValues.text(try required(12)), platform: BinaryValues.text(try required(13)))
            deltas.add(event, appId: try BinaryValues.int64(try required(0)), context: context)
            eventsRead += 1
        }
    }

    /// Every grain of the rollups of the events read, once the COPY has ended.
    mutating func finish() throws(DatabaseError) -> RollupDeltas {
        guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
        deltas.finish()
        return deltas
    }

    /// The finest rows only (the quarter-hour grain, by every dimension), once the COPY has ended.
    mutating func finishFinest() throws(DatabaseError) -> RollupDeltas {
        guard decoder.finished else { throw DatabaseError(.unexpectedResult, "binary COPY data ended without its trailer") }
        deltas.finishFinest()
        return deltas
    }
}
