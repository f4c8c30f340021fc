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

/// Writes groups of batches in one transaction: binary COPY into a session staging table, then
/// one statement (sql/queries/commit_staged.sql) that dedups and stores. Owns its connection.
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
    public func commit(_ batches: [StagedBatch]) throws(DatabaseError) -> [BatchOutcome] {
        guard batches.contains(where: { !$0.events.isEmpty }) else {
            return batches.map { _ in BatchOutcome(stored: 0, duplicates: 0) }
        }
        try ensurePartitions(for: batches)
        if !stagingReady {
            try connection.query(EmbeddedSQL.createStaging)
            stagingReady = true
        }
        let data = EventCopyRows.encode(batches)
        var attempt = 0
        while true {
            do {
                return try commitOnce(batches, data: data)
            } catch {
                if !connection.isUsable { stagingReady = false }
                attempt += 1
                if error.isTransientConflict, attempt < 4 { continue }
                throw error
            }
        }
    }

    private func commitOnce(_ batches: [StagedBatch], data: [UInt8]) throws(DatabaseError) -> [BatchOutcome] {
        do {
            try connection.query("BEGIN")
            try connection.copyIn(EmbeddedSQL.copyStaging, data: data)
            let result = try connection.query(EmbeddedSQL.commitStaged)
            try connection.query("COMMIT")
            return Self.outcomes(batches, storedSeqs: result.rows.compactMap { $0[0].flatMap { Int($0) } })
        } catch {
            if connection.isUsable { _ = try? connection.query("ROLLBACK") }
            throw error
        }
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
