/// When to post and how much: a batch is due when enough events, enough bytes or an old enough
/// event is waiting. Pure, so the trigger rules are tested without a clock or a queue.
public struct BatchPolicy: Sendable, Equatable {
    /// Events per request; the collector accepts at most 2,000.
    public var maxEvents: Int
    /// Uncompressed event JSON per request; the collector inflates at most 8 MiB.
    public var maxBytes: Int
    /// The oldest waiting event is sent after at most this long (seconds).
    public var maxAge: Double
    /// A compressed body above this is split before sending (the collector answers 413 over 1 MiB).
    public var maxCompressedBytes: Int

    public init(maxEvents: Int = 500, maxBytes: Int = 512 << 10, maxAge: Double = 30, maxCompressedBytes: Int = 1 << 20) {
        self.maxEvents = min(max(1, maxEvents), 2000)
        self.maxBytes = max(1024, min(maxBytes, 8 << 20))
        self.maxAge = max(0, maxAge)
        self.maxCompressedBytes = maxCompressedBytes
    }

    /// Whether an automatic flush should post now.
    public func isDue(count: Int, bytes: Int, oldestAge: Double?) -> Bool {
        guard count > 0 else { return false }
        return count >= maxEvents || bytes >= maxBytes || (oldestAge ?? 0) >= maxAge
    }
}
