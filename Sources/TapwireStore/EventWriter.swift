import Synchronization
import TapwireCore

/// How one request's events fared in a group commit.
public struct BatchOutcome: Sendable, Equatable {
    public var stored: Int
    public var duplicates: Int
    public init(stored: Int, duplicates: Int) {
        self.stored = stored
        self.duplicates = duplicates
    }
}

/// The UTC days that have an events partition, shared by every writer of a process so each
/// day's partition is created once; a day not in the set costs one idempotent function call.
public final class PartitionDays: Sendable {
    private let known = Mutex<Set<Int64>>([])
    public init() {}

    func missing(_ days: Set<Int64>) -> [Int64] { known.withLock { set in days.subtracting(set).sorted() } }
    func insert(_ days: [Int64]) { known.withLock { $0.formUnion(days) } }
    public func forget() { known.withLock { $0.removeAll() } }
}

/// Writes groups of batches in one transaction: binary COPY into a session staging table, the
/// dedup claim, a COPY of the new rows into events and the sql/fresh/ aggregates (steps in
/// `commit`; docs/architecture.md, "One event's path", step 4). Owns its connection.
public final class EventWriter {
    public let connection: PostgresConnection
    let partitions: PartitionDays
    private var stagingReady = false

    public init(connection: PostgresConnection, partitions: PartitionDays) {
        self.connection = connection
        self.partitions = partitions
    }

    /// Stores the batches, returning per batch how many were new and how many duplicates. A
    /// transaction that loses a lock race (deadlock, serialization) is retried; anything else
    /// throws, and then nothing of the group was stored.
    ///
    /// One transaction: COPY the group's rows (repeats within the group dropped, in key order)
    /// into the session's staging table; claim their ids in event_ids
    /// (sql/queries/claim_event_ids.sql); if some were stored before, find and drop them from
    /// staging; COPY the new rows straight into events (COPY's multi-row insert is much faster
    /// than INSERT … SELECT into a partitioned table); run sql/fresh/*.sql, which aggregate the
    /// staging table, now exactly the new rows; COMMIT.
    public func commit(_ batches: [StagedBatch]) throws(DatabaseError) -> [BatchOutcome] {
        guard batches.contains(where: { !$0.events.isEmpty }) else {
            return batches.map { _ in BatchOutcome(stored: 0, duplicates: 0) }
        }
        try ensurePartitions(for: batches)
        if !stagingReady {
            try connection.query(EmbeddedSQL.createStaging)
            stagingReady = true
        }
        let plan = StagingPlan(batches)
        let staged = EventCopyRows.encode(batches, withSeq: true, order: plan.order)
        var attempt = 0
        while true {
            do {
                return try commitOnce(batches, plan: plan, staged: staged)
            } catch {
                if !connection.isUsable { stagingReady = false }
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

        init(_ batches: [StagedBatch]) {
            var keyed: [(key: AppEvent, seq: Int)] = []
            keyed.reserveCapacity(batches.reduce(0) { $0 + $1.events.count })
            var seen = Set<AppEvent>()
            seen.reserveCapacity(keyed.capacity)
            var seq = 0
            for batch in batches {
                for event in batch.events {
                    let key = AppEvent(appId: batch.appId, eventId: event.eventId)
                    if seen.insert(key).inserted { keyed.append((key, seq)) }
                    seq += 1
                }
            }
            keyed.sort { $0.key < $1.key }
            order = keyed.map(\.seq)
        }
    }

    private func commitOnce(_ batches: [StagedBatch], plan: StagingPlan, staged: [UInt8]) throws(DatabaseError) -> [BatchOutcome] {
        try connection.transaction { () throws(DatabaseError) -> [BatchOutcome] in
            try connection.copyIn(EmbeddedSQL.copyStaging, data: staged)
            let claimed = try connection.query(EmbeddedSQL.claimEventIds).affectedRows
            var fresh = plan.order
            if claimed < plan.order.count {
                let before = Set(try connection.query(EmbeddedSQL.stagedDuplicates).rows.compactMap { $0[0].flatMap { Int($0) } })
                try connection.query(EmbeddedSQL.dropStagedDuplicates, ["{" + before.map(String.init).joined(separator: ",") + "}"])
                fresh = plan.order.filter { !before.contains($0) }
            }
            if !fresh.isEmpty {
                try connection.copyIn(EmbeddedSQL.copyEvents, data: EventCopyRows.encode(batches, withSeq: false, order: fresh))
                for statement in EmbeddedSQL.freshRowStatements { try connection.query(statement.sql) }
            }
            return Self.outcomes(batches, storedSeqs: fresh)
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
