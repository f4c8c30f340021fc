/// The decisions of group commit, as a value with no I/O (after postgres-nio's state machines):
/// requests queue their events; a free writer takes everything queued, up to a cap, as one
/// transaction. The queue is bounded, and while the database is down it refuses work at once
/// so clients back off and keep their events instead of the collector holding them in memory.
///
/// A free writer commits at once while every writer is free (low load: no added latency). When
/// another writer is already committing, the database is the bottleneck, and a tiny group would
/// pay a transaction's fixed costs for a request or two: the free writer then waits for the
/// group to fill to `minEventsWhenBusy`, or for the oldest request to have waited `linger`.
public struct GroupCommitQueue<Item: Sendable>: Sendable {
    public typealias Policy = GroupCommitPolicy

    /// What a free writer should do now.
    public enum Take: Sendable {
        case commit([Item])
        /// Nothing worth committing yet; ask again at this monotonic time (nanoseconds).
        case waitUntil(UInt64)
        case idle
    }

    public enum Admission: Sendable, Equatable {
        case queued
        /// The queue is full: the database is falling behind.
        case overloaded(retryAfterSeconds: Int)
        /// The database is unreachable; a writer is reconnecting.
        case unavailable(retryAfterSeconds: Int)
    }

    public let policy: Policy
    private var pending: [(item: Item, events: Int, enqueuedAt: UInt64)] = []
    /// Writers between `take` and `finishedGroup`.
    public private(set) var busyWriters = 0
    private var head = 0
    public private(set) var queuedEvents = 0
    /// nil while the database is available; otherwise the Retry-After to give.
    public private(set) var unavailableRetryAfter: Int?

    public init(policy: Policy = Policy()) { self.policy = policy }

    public var queuedRequests: Int { pending.count - head }
    public var isAvailable: Bool { unavailableRetryAfter == nil }

    public mutating func submit(_ item: Item, events: Int, now: UInt64 = 0) -> Admission {
        if let retry = unavailableRetryAfter { return .unavailable(retryAfterSeconds: retry) }
        if queuedEvents > 0, queuedEvents + events > policy.maxQueuedEvents { return .overloaded(retryAfterSeconds: 1) }
        pending.append((item, events, now))
        queuedEvents += events
        return .queued
    }

    /// A free writer asks for work. On `.commit` it counts as busy until `finishedGroup`.
    public mutating func take(now: UInt64) -> Take {
        guard head < pending.count else { return .idle }
        if busyWriters > 0, queuedEvents < policy.minEventsWhenBusy {
            let due = pending[head].enqueuedAt &+ policy.lingerNanoseconds
            if now < due { return .waitUntil(due) }
        }
        guard let group = takeGroup() else { return .idle }
        busyWriters += 1
        return .commit(group)
    }

    /// The writer that took a group has committed (or failed) it.
    public mutating func finishedGroup() { busyWriters = max(0, busyWriters - 1) }

    /// The next group regardless of lingering: the oldest requests, up to the event cap. Nil when idle.
    public mutating func takeGroup() -> [Item]? {
        guard head < pending.count else { return nil }
        var group: [Item] = []
        var events = 0
        while head < pending.count {
            let next = pending[head]
            if !group.isEmpty, events + next.events > policy.maxEventsPerCommit { break }
            group.append(next.item)
            events += next.events
            head += 1
        }
        queuedEvents -= events
        compact()
        return group
    }

    /// The database went away: everything queued must be answered 503 now (returned here), and
    /// new requests are refused until `markAvailable`.
    public mutating func markUnavailable(retryAfterSeconds: Int) -> [Item] {
        unavailableRetryAfter = max(1, retryAfterSeconds)
        let failed = pending[head...].map(\.item)
        pending.removeAll()
        head = 0
        queuedEvents = 0
        return failed
    }

    public mutating func markAvailable() { unavailableRetryAfter = nil }

    private mutating func compact() {
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > pending.count {
            pending.removeFirst(head)
            head = 0
        }
    }
}
