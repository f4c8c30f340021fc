import TapwireCore

/// The rollups' upkeep. Group commits append the finest rows their events add (`RollupDeltas`)
/// to rollup_delta_batches, a row of arrays per commit and app; `fold` sums the pending batches
/// here, derives every table's rows (`RollupDeltas.derive`) and writes each key once into the
/// rollup tables (migrations 0060, 0150).
///
/// `tapwire rollups rebuild` recomputes the rollups of a range from events, one UTC day per
/// transaction, with the same code: it streams the day's events back (binary `COPY … TO STDOUT`)
/// through `RollupDeltas`, so one definition of every aggregate serves the commits and the
/// rebuild. Each transaction locks the rollup tables and the pending deltas against group
/// commits (not against reports) and folds first, so no commit can fall between the read of the
/// day's events and the replacement of its rows (`tapwire_replace_rollups`, migration 0310, which
/// writes only the rows that differ). The SQL recomputation of sql/fresh/ is kept apart, as the tests' and the soak's
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
    /// deltas moved. Readers that must count every acknowledged event call it first. Every fold's
    /// transaction (this one, the shares', a rebuild's day) turns the server's statement, lock and
    /// idle-in-transaction timeouts off for itself: it grows with the backlog, and a timeout would
    /// cut it at the same point on every retry (docs/deployment.md, "The server's timeouts").
    @discardableResult
    public func fold(on connection: PostgresConnection) throws(DatabaseError) -> Int {
        try connection.transaction(timeouts: .off) { () throws(DatabaseError) -> Int in try foldPending(on: connection) }
    }

    /// Apps whose pending batches a fold takes, sums and upserts at once. One app's keys are few;
    /// fifty apps' made the collector's peak RSS 95-130 MiB (docs/ingestion.md, "Many apps on
    /// one collector").
    static let foldAppsAtOnce = 8

    /// The fold, inside the caller's transaction: takes the pending batches (deleting them) of
    /// a few apps at a time, sums their deltas per key, derives every table's rows and has
    /// tapwire_fold_rollups() upsert them. Summing here is what keeps the fold cheap: the database sorts and upserts
    /// each key once per fold, not once per commit that touched it (a key belongs to one app).
    package func foldPending(on connection: PostgresConnection) throws(DatabaseError) -> Int {
        let moved = try foldPendingDeltas(on: connection)
        try attributePending(on: connection, delivered: true, queued: true)
        try holdoutsPending(on: connection)
        return moved
    }

    /// The collector's background fold in shares run at once, each in its own transaction on its
    /// own connection (`RollupFolder`; docs/ingestion.md, "The fold's shares"). This one is the
    /// engagement deltas: it folds them, then, after `others` returns (the folder's other shares
    /// have committed or failed), applies the queued changes of delivered in strata to the
    /// conversions in them (migration 0180) and commits: what the fold changed commits at once,
    /// so no reader sees a stratum's new delivered in the base without it in the conversions'
    /// rows. Returns the deltas moved.
    package func foldDeltasShare(on connection: PostgresConnection, others: () -> Void) throws(DatabaseError) -> Int {
        try connection.transaction(timeouts: .off) { () throws(DatabaseError) -> Int in
            let moved = try foldPendingDeltas(on: connection)
            others()
            try attributePending(on: connection, delivered: true, queued: false)
            return moved
        }
    }

    /// An attribution share of the background fold (`foldDeltasShare`), in a transaction of its
    /// own: each app's queued events attributed, every part of the queue (`part` nil) or one
    /// part (migration 0328: the parts' shares run at once, each on its connection), then, in
    /// the share of every part or of part 0, the holdouts.
    package func foldAttributionShare(part: Int?, on connection: PostgresConnection) throws(DatabaseError) {
        try connection.transaction(timeouts: .off) { () throws(DatabaseError) in
            try attributePending(on: connection, delivered: false, queued: true, part: part)
            if (part ?? 0) == 0 { try holdoutsPending(on: connection) }
        }
    }

    /// The holdouts' share of the fold: each app's queued devices, their holdout rows recomputed
    /// and the change added to rollup_holdouts (docs/holdouts.md).
    private func holdoutsPending(on connection: PostgresConnection) throws(DatabaseError) {
        for app in try connection.query(EmbeddedSQL.pendingHoldoutApps).rows.compactMap({ $0.first ?? nil }) {
            try connection.query(EmbeddedSQL.holdoutsPending, [app])
        }
    }

    /// Attribution's share of the fold, app by app in app order (each takes the app's attribution
    /// lock, every part's: migration 0328): the changes of delivered in strata added to the
    /// conversions in them (migration 0180; `delivered`), then the app's queued events, their
    /// conversions' credits recomputed and the change added to the conversion rollups
    /// (docs/outcomes.md; `queued`): every part at once, or (`part`) one part of the queue, under
    /// that part's lock only. The sums are exact in either order (docs/outcomes.md, "The
    /// conversion sums in any order").
    private func attributePending(on connection: PostgresConnection, delivered: Bool, queued: Bool, part: Int? = nil) throws(DatabaseError) {
        for row in try connection.query(EmbeddedSQL.pendingAttributionApps).namedRows {
            let app: Int64 = try row.decode("app_id")
            if delivered, try row.decode("delivered", as: Bool.self) {
                try connection.query(EmbeddedSQL.conversionUpliftDelivered, [String(app)])
            }
            if queued, try row.decode("queued", as: Bool.self) {
                if let part {
                    try attributePart(app: app, part: part, on: connection)
                } else {
                    try connection.query(EmbeddedSQL.attributePending, [String(app)])
                }
            }
        }
    }

    /// Attribution of one part of an app's queue (0 ..< `AttributionPart.count`: a driver with
    /// that many connections may attribute one app's parts at once, each in a transaction of its
    /// own; the sequential fold takes every part at once), under that part's lock only, in the
    /// caller's transaction; returns the credits that changed. Beside another
    /// part of the app it waits at most for the other's commit where both change one rollup
    /// key, never in a circle (docs/outcomes.md, "Attribution in parts by install id"); the
    /// app's delivered changes (`conversion_uplift_delivered.sql`) take every part's lock, so a
    /// driver runs them first, before any part writes, in a transaction of their own.
    @discardableResult
    public func attributePart(app: Int64, part: Int, on connection: PostgresConnection) throws(DatabaseError) -> Int {
        Int(try connection.query(EmbeddedSQL.attributePart, [String(app), String(part)]).scalar ?? "0") ?? 0
    }

    private func foldPendingDeltas(on connection: PostgresConnection) throws(DatabaseError) -> Int {
        let apps = try connection.query(EmbeddedSQL.pendingDeltaApps).rows.compactMap { $0.first ?? nil }
        guard !apps.isEmpty else { return try upsert(([], 0), on: connection).pending }
        var moved = 0
        for start in stride(from: 0, to: apps.count, by: Self.foldAppsAtOnce) {
            try connection.query(EmbeddedSQL.foldApps, [apps[start..<min(apps.count, start + Self.foldAppsAtOnce)].joined(separator: ",")])
            // Keyed by the texts' ids: the real shape's many keys summed, derived and encoded
            // without hashing a String's bytes (docs/benchmarks.md, "The fold keyed by text ids").
            var reader = RollupDeltaRows.DeltaBatchReader<TextId>()
            try connection.copyOut(EmbeddedSQL.takeRollupDeltaBatches) { (piece) throws(DatabaseError) in try reader.consume(piece) }
            let sums = try reader.finish()
            let upserted = try upsert(RollupDeltaRows.encodeRows(sums, texts: reader.texts), on: connection)
            moved += reader.deltasRead + upserted.pending - upserted.written
        }
        return moved
    }

    /// Writes derived rows, encoded for COPY (`RollupDeltaRows.encodeRows`), into the
    /// rollup tables, each key once, in key order: through rollup_fold_rows (unlogged: its rows
    /// never outlive this transaction, so they cost no WAL; migration 0320) and
    /// tapwire_fold_rollups(). Returns the rows it wrote and the pending rows the function
    /// upserted (more when an earlier collector left some in rollup_deltas).
    private func upsert(_ encoded: (data: [UInt8], rows: Int), on connection: PostgresConnection) throws(DatabaseError) -> (written: Int, pending: Int) {
        var written = 0
        if encoded.rows > 0 {
            try connection.copyIn(EmbeddedSQL.copyRollupFoldRows, data: encoded.data)
            written = encoded.rows
        }
        return (written, Int(try connection.query(EmbeddedSQL.foldRollupDeltas).scalar ?? "0") ?? 0)
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

    /// Whether the app (or any app) has an event: one row found, where `eventHours` reads them all.
    public func hasEvents(appId: Int64?, on connection: PostgresConnection) throws(DatabaseError) -> Bool {
        try connection.query(EmbeddedSQL.rollupsHasEvents, [appId.map(String.init)]).value(Bool.self)
    }

    /// Rebuilds [from, to) widened to whole UTC days (the daily rows are only right for a whole
    /// day). Returns one entry per day rebuilt.
    @discardableResult
    public func rebuild(appId: Int64?, from: Timestamp, to: Timestamp, on connection: PostgresConnection,
                        progress: (Progress) -> Void = { _ in }) throws(DatabaseError) -> [Progress] {
        // Each day's tally gets room for the shapes of the day rebuilt before it: days are alike,
        // and a tally that grows from empty rehashes its keys again and again.
        var shapes = 0
        let days = try forEachDay(appId: appId, from: from, to: to, on: connection, progress: progress) { (parameters) throws(DatabaseError) -> Int in
            // The session's table that stages the day's rows, never logged and emptied at every
            // commit (migration 0313): rollup_deltas, logged, wrote them to WAL twice. Made in
            // the day's transaction if the session has none: behind PgBouncer's transaction
            // pooling, each transaction may run in another server session.
            try connection.query(EmbeddedSQL.rollupsRebuildStage)
            var reader = EventRowReader<TextId>(shapes: shapes)
            try connection.copyOut(built: EmbeddedSQL.rollupsRebuildEvents, parameters) { (piece) throws(DatabaseError) in try reader.consume(piece) }
            // The day's quarter hours and its day rows only: its blocks of days are made once,
            // from their days, by forEachDay. They replace the day's stored rows, writing only
            // what changed (tapwire_replace_rollups, migrations 0310 and 0313), also when the day
            // has no events left (then its stored rows are deleted).
            shapes = reader.shapeCount
            let rows = try reader.finish(blocksOfDays: false)
            if rows.rowCount > 0 {
                try connection.copyIn(EmbeddedSQL.copyRollupRebuildRows, data: RollupDeltaRows.encodeRows(rows, texts: reader.texts).data)
            }
            try connection.query(EmbeddedSQL.rollupsRebuildReplace, parameters)
            return reader.eventsRead
        }
        // The conversions the days queued are attributed by a last fold.
        try fold(on: connection)
        // Reports fold first, and a fold scans rollup_deltas: leave it small, not full of the
        // dead rows of the folds above (each day's, and the last) until autovacuum comes by.
        try connection.query(EmbeddedSQL.rollupsVacuumDeltas)
        return days
    }

    /// Runs `recompute` for each UTC day of [from, to) (widened to whole days), each in its own
    /// transaction that first locks the rollups and the pending deltas against group commits,
    /// and folds; `recompute` then replaces the day's rows and bumps the rebuild generation
    /// (`rebuild` through tapwire_replace_rollups, migration 0310; the tests' SQL oracle by
    /// deleting the day's rows and inserting its own recomputation). `recompute` gets the
    /// parameters (app or NULL, day start, day end) and returns how many events it read. A
    /// transaction that loses a lock race is retried. Days go from the last to the first, so
    /// each moves back where the quarter-hour grain is complete (rollups_quarter_coverage.sql)
    /// by a day; the result lists them first to last. A block of 2 to 16 days is made again
    /// from its days' rows once, in the transaction of the last of its days the range holds (its
    /// first day, or the range's), not in every day's: `recompute` leaves the blocks alone, so
    /// until then they hold what they held before the rebuild (docs/reports.md, "Rebuilding").
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
            // The blocks of days (grains 3 to 6) whose last day to recompute this is: their first
            // day, or the range's first. Each is made once, from its days' rows, after all of them.
            let grains = RollupRows.Grain.dayBlocks.filter {
                $0 > RollupRows.Grain.day && (chunkStart == start || RollupRows.Grain.block(of: chunkStart, grain: $0) == chunkStart)
            }
            let starts = grains.map { RollupRows.Grain.block(of: chunkStart, grain: $0) }
            let blocks = [appId.map(String.init), PostgresValue.intArray(grains),
                          PostgresValue.timestampArray(starts),
                          PostgresValue.timestampArray(zip(grains, starts).map { $1 + RollupRows.Grain.days($0) * day })]
            var attempt = 0
            while true {
                do {
                    let events = try connection.transaction(timeouts: .off) { () throws(DatabaseError) -> Int in
                        try connection.query(EmbeddedSQL.rollupsRebuildLock)
                        _ = try foldPending(on: connection)
                        let events = try recompute(parameters)
                        // The blocks of days that end here (going back), made again from their days.
                        if !grains.isEmpty { try connection.query(EmbeddedSQL.rollupsRebuildBlocks, blocks) }
                        try connection.query(EmbeddedSQL.rollupsQuarterCoverage, parameters)
                        try connection.query(EmbeddedSQL.rollupsRebuildAttribution, parameters)
                        try connection.query(EmbeddedSQL.rollupsRebuildHoldouts, parameters)
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
