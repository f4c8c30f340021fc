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
    ///
    /// One transaction: COPY every row into the session's staging table; claim the ids in
    /// event_ids (sql/queries/claim_event_ids.sql), which returns only the new ones; drop the
    /// duplicates from staging; COPY the new rows straight into events (COPY's multi-row insert
    /// is much faster than INSERT … SELECT into a partitioned table); run sql/fresh/*.sql, which
    /// aggregate the staging table, now exactly the new rows; COMMIT.
    public func commit(_ batches: [StagedBatch]) throws(DatabaseError) -> [BatchOutcome] {
        guard batches.contains(where: { !$0.events.isEmpty }) else {
            return batches.map { _ in BatchOutcome(stored: 0, duplicates: 0) }
        }
        try ensurePartitions(for: batches)
        if !stagingReady {
            try connection.query(EmbeddedSQL.createStaging)
            stagingReady = true
        }
        let staged = EventCopyRows.encode(batches)
        var attempt = 0
        while true {
            do {
                return try commitOnce(batches, staged: staged)
            } catch {
                if !connection.isUsable { stagingReady = false }
                attempt += 1
                if error.isTransientConflict, attempt < 4 { continue }
                throw error
            }
        }
    }

    private func commitOnce(_ batches: [StagedBatch], staged: [UInt8]) throws(DatabaseError) -> [BatchOutcome] {
        do {
            try connection.query("BEGIN")
            try connection.copyIn(EmbeddedSQL.copyStaging, data: staged)
            let claimed = try connection.query(EmbeddedSQL.claimEventIds)
            let fresh = Self.freshSeqs(batches, claimed: claimed.rows)
            let total = batches.reduce(0) { $0 + $1.events.count }
            if fresh.count < total {
                let duplicates = (0..<total).filter { !fresh.contains($0) }
                try connection.query(EmbeddedSQL.dropStagedDuplicates, ["{" + duplicates.map(String.init).joined(separator: ",") + "}"])
            }
            if !fresh.isEmpty {
                try connection.copyIn(EmbeddedSQL.copyEvents, data: EventCopyRows.encode(batches, withSeq: false, only: fresh.count < total ? fresh : nil))
                for statement in EmbeddedSQL.freshRowStatements { try connection.query(statement.sql) }
            }
            try connection.query("COMMIT")
            return Self.outcomes(batches, storedSeqs: Array(fresh))
        } catch {
            if connection.isUsable { _ = try? connection.query("ROLLBACK") }
            throw error
        }
    }

    /// The staging seq of the first copy of each claimed (app_id, event_id).
    static func freshSeqs(_ batches: [StagedBatch], claimed: [[String?]]) -> Set<Int> {
        var wanted = Set<AppEvent>()
        wanted.reserveCapacity(claimed.count)
        for row in claimed {
            guard let app = row[0].flatMap({ Int64($0) }), let id = row[1].flatMap({ EventID($0) }) else { continue }
            wanted.insert(AppEvent(appId: app, eventId: id))
        }
        var fresh = Set<Int>()
        fresh.reserveCapacity(wanted.count)
        var seq = 0
        for batch in batches {
            for event in batch.events {
                if wanted.remove(AppEvent(appId: batch.appId, eventId: event.eventId)) != nil { fresh.insert(seq) }
                seq += 1
            }
        }
        return fresh
    }

    struct AppEvent: Hashable {
        var appId: Int64
        var eventId: EventID
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
