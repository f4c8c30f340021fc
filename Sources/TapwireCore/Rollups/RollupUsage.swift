/// A mismatch usage row's count and first and last times.
public struct RollupUsage: Hashable, Sendable {
    public var count: Int64
    public var firstSeen: Timestamp
    public var lastSeen: Timestamp

    public init(count: Int64, firstSeen: Timestamp, lastSeen: Timestamp) {
        self.count = count
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }

    public mutating func add(_ other: RollupUsage) {
        count += other.count
        firstSeen = min(firstSeen, other.firstSeen)
        lastSeen = max(lastSeen, other.lastSeen)
    }
}
