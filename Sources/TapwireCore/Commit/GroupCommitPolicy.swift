/// The limits of group commit, one value shared by the queue (`GroupCommitQueue.Policy`) and
/// the writers that drive it (`GroupCommitter.Options.policy`), so neither copies the other.
public struct GroupCommitPolicy: Sendable, Equatable {
    /// One transaction takes at most this many events (it always takes at least one request).
    public var maxEventsPerCommit: Int
    /// Past this many queued events new requests get 503 with Retry-After.
    public var maxQueuedEvents: Int
    /// While another writer is busy, a group waits to reach this many events…
    public var minEventsWhenBusy: Int
    /// …or for its oldest request to have waited this long (nanoseconds).
    public var lingerNanoseconds: UInt64

    public init(maxEventsPerCommit: Int = 20_000, maxQueuedEvents: Int = 200_000, minEventsWhenBusy: Int = 4000,
                lingerNanoseconds: UInt64 = 5_000_000) {
        self.maxEventsPerCommit = maxEventsPerCommit
        self.maxQueuedEvents = maxQueuedEvents
        self.minEventsWhenBusy = minEventsWhenBusy
        self.lingerNanoseconds = lingerNanoseconds
    }
}
