import Synchronization
import TapwireCore

/// Writes groups of batches in one transaction: the dedup claim, a binary COPY of the new rows
/// into events, and a COPY of the finest rollup rows they add, computed here by `RollupDeltas`
/// and appended to rollup_delta_batches as one row of arrays per app, which `RollupFolder` folds
/// into the rollups (steps in `commit`;
/// docs/architecture.md, "One event's path", step 4). Owns its connection.
public final class EventWriter {
    public let connection: PostgresConnection
    let partitions: PartitionDays
    /// How the next group claims its ids; this writer's own history decides.
    public private(set) var claimStrategy: ClaimStrategy

    public init(connection: PostgresConnection, partitions: PartitionDays, claimStrategy: ClaimStrategy = ClaimStrategy()) {
        self.connection = connection
        self.partitions = partitions
        self.claimStrategy = claimStrategy
    }

    /// Stores the batches, returning per batch how many were new and how many duplicates. A
    /// transaction that loses a lock race (deadlock, serialization) is retried; anything else
    /// throws, and then nothing of the group was stored.
    ///
    /// One transaction: claim the group's ids (repeats within the group dropped, in key order)
    /// in event_ids, either with one COPY (`ClaimStrategy.bulk`, which fails if any was stored
    /// before, and the group is then claimed again) or by staging them and inserting with
    /// ON CONFLICT DO NOTHING (sql/queries/claim_event_ids.sql, which returns the ids it
    /// skipped); COPY the new rows into events; COPY the finest rollup rows they add into
    /// rollup_delta_batches (sql/queries/copy_rollup_delta_batch.sql); COMMIT.
    public func commit(_ batches: [StagedBatch]) throws(DatabaseError) -> [BatchOutcome] {
        guard batches.contains(where: { !$0.events.isEmpty }) else {
            return batches.map { _ in BatchOutcome(stored: 0, duplicates: 0) }
        }
        try ensurePartitions(for: batches)
        let plan = StagingPlan(batches)
        // Encoded before the transaction, so locks are held for the database's work only.
        let allNew = GroupRows(batches, plan: plan, rows: plan.order)
        var attempt = 0
        while true {
            let mode = claimStrategy.mode
            // The staging path's rows carry their seq (sql/queries/copy_staged_ids.sql).
            let ids = EventCopyRows.encodeIds(batches, plan: plan, withSeq: mode == .skipping)
            do {
                let (outcomes, storedBefore) = try commitOnce(batches, plan: plan, mode: mode, ids: ids, allNew: allNew)
                claimStrategy.committed(storedBefore: storedBefore)
                return outcomes
            } catch {
                if mode == .bulk, error.isUniqueViolation || (error.isInternalError && error.query == EmbeddedSQL.copyEventIds.name) {
                    // An id of the group was stored before: claim again, skipping such ids. On
                    // Citus the claim's COPY fails with XX000 whatever the reason (see
                    // `isInternalError`); the skipping claim then tells exactly which ids were
                    // stored before, or fails itself, with the SQLSTATE, if that was not the reason.
                    claimStrategy.bulkClaimHitDuplicate()
                    continue
                }
                attempt += 1
                if error.isTransientConflict, attempt < 4 { continue }
                throw error
            }
        }
    }

    /// Which rows to stage, and in what order: the first copy of each (app_id, event_id) of the
    /// group, sorted by that key.
    struct StagingPlan {
        /// Row numbers (seq, across the group's batches in order) to stage, in key order.
        var order: [Int]
        /// Where each seq is: its batch and its index in that batch.
        var locations: [(batch: Int, index: Int)]

        init(_ batches: [StagedBatch]) {
            var keyed: [(key: AppEvent, seq: Int)] = []
            let total = batches.reduce(0) { $0 + $1.events.count }
            keyed.reserveCapacity(total)
            locations = []
            locations.reserveCapacity(total)
            var seen = Set<AppEvent>()
            seen.reserveCapacity(total)
            var seq = 0
            for (b, batch) in batches.enumerated() {
                for (i, event) in batch.events.enumerated() {
                    let key = AppEvent(appId: batch.appId, eventId: event.eventId)
                    if seen.insert(key).inserted { keyed.append((key, seq)) }
                    locations.append((b, i))
                    seq += 1
                }
            }
            keyed.sort { $0.key < $1.key }
            order = keyed.map(\.seq)
        }
    }

    /// The rows a commit stores, encoded for COPY, and the rollup rows they add.
    struct GroupRows {
        var seqs: [Int]
        var events: [UInt8]
        var deltas: [UInt8]
        /// What attribution must look at again: sql/queries/copy_attribution_pending.sql.
        var attribution: [UInt8]
        /// What the holdouts must look at again: sql/queries/copy_holdout_pending.sql.
        var holdouts: [UInt8]

        init(_ batches: [StagedBatch], plan: StagingPlan, rows seqs: [Int]) {
            self.seqs = seqs
            events = EventCopyRows.encode(batches, order: seqs)
            // Keyed by the texts' ids, each text's bytes sent from `TextIds`: no String hashed
            // per key (docs/benchmarks.md, "The fold keyed by text ids").
            var rollups = RollupTally<TextId>()
            for seq in seqs {
                let (b, i) = plan.locations[seq]
                rollups.add(batches[b].events[i], appId: batches[b].appId, context: batches[b].context)
            }
            rollups.finishFinest() // the fold derives the coarser grains, once for many commits
            deltas = RollupDeltaRows.encodeBatch(rollups)
            attribution = EventCopyRows.encodeAttributionPending(batches, plan: plan, rows: seqs)
            holdouts = EventCopyRows.encodeHoldoutPending(batches, plan: plan, rows: seqs)
        }
    }

    private func commitOnce(_ batches: [StagedBatch], plan: StagingPlan, mode: ClaimStrategy.Mode, ids: [UInt8],
                            allNew: GroupRows) throws(DatabaseError) -> (outcomes: [BatchOutcome], storedBefore: Int) {
        try connection.transaction { () throws(DatabaseError) -> ([BatchOutcome], Int) in
            var rows = allNew
            switch mode {
            case .bulk:
                try connection.copyIn(EmbeddedSQL.copyEventIds, data: ids)
            case .skipping:
                // In the transaction that uses it: behind a transaction pooler the next
                // transaction may run on a server session that has no such table yet.
                try connection.query(EmbeddedSQL.createStagedIds)
                try connection.copyIn(EmbeddedSQL.copyStagedIds, data: ids)
                let before = Set(try connection.query(EmbeddedSQL.claimEventIds).namedRows.map { (row) throws(DatabaseError) in
                    try row.decode("seq", as: Int.self)
                })
                if !before.isEmpty {
                    rows = GroupRows(batches, plan: plan, rows: plan.order.filter { !before.contains($0) })
                }
            }
            if !rows.seqs.isEmpty {
                try connection.copyIn(EmbeddedSQL.copyEvents, data: rows.events)
                try connection.copyIn(EmbeddedSQL.copyRollupDeltaBatch, data: rows.deltas)
                if !rows.attribution.isEmpty { try connection.copyIn(EmbeddedSQL.copyAttributionPending, data: rows.attribution) }
                if !rows.holdouts.isEmpty { try connection.copyIn(EmbeddedSQL.copyHoldoutPending, data: rows.holdouts) }
            }
            return (Self.outcomes(batches, storedSeqs: rows.seqs), plan.order.count - rows.seqs.count)
        }
    }

    struct AppEvent: Hashable, Comparable {
        var appId: Int64
        var eventId: EventID
        static func < (a: AppEvent, b: AppEvent) -> Bool { (a.appId, a.eventId) < (b.appId, b.eventId) }
    }

    static func outcomes(_ batches: [StagedBatch], storedSeqs: [Int]) -> [BatchOutcome] {
        var bounds: [Int] = []
        var start = 0
        for batch in batches {
            bounds.append(start)
            start += batch.events.count
        }
        var stored = [Int](repeating: 0, count: batches.count)
        for seq in storedSeqs {
            // The batch whose range holds seq: the last start <= seq.
            var low = 0, high = bounds.count - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if bounds[mid] <= seq { low = mid } else { high = mid - 1 }
            }
            stored[low] += 1
        }
        return zip(batches, stored).map { BatchOutcome(stored: $1, duplicates: $0.events.count - $1) }
    }

    func ensurePartitions(for batches: [StagedBatch]) throws(DatabaseError) {
        var days = Set<Int64>()
        for batch in batches { for event in batch.events { days.insert(event.eventTime.utcDay) } }
        let missing = partitions.missing(days)
        guard !missing.isEmpty else { return }
        // One call per run of consecutive days.
        var runStart = missing[0], previous = missing[0]
        for day in missing.dropFirst() + [Int64.max] {
            if day != previous + 1 {
                try connection.query(EmbeddedSQL.ensurePartitions, [CivilCalendar.isoDate(runStart), CivilCalendar.isoDate(previous)])
                if day != .max { runStart = day }
            }
            previous = day
        }
        partitions.insert(missing)
    }

    /// Creates the partitions from yesterday to `daysAhead` days from now (run at start and hourly).
    public func precreatePartitions(now: Timestamp, daysAhead: Int64 = 3) throws(DatabaseError) {
        let today = now.utcDay
        try connection.query(EmbeddedSQL.ensurePartitions, [CivilCalendar.isoDate(today - 1), CivilCalendar.isoDate(today + daysAhead)])
        partitions.insert(Array((today - 1)...(today + daysAhead)))
    }
}
