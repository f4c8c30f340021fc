import Foundation

public struct QueueStats: Sendable, Equatable {
    public var count: Int
    public var bytes: Int
    /// Events dropped oldest-first because the queue reached its size cap, over the queue's life.
    public var dropped: UInt64
    public var recovery: QueueRecovery
}
