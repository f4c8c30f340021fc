import Foundation

/// What opening the queue found and repaired.
public struct QueueRecovery: Sendable, Equatable {
    /// Bytes of an incomplete last record (a write torn by a kill) that were cut off.
    public var tornTailBytes = 0
    /// Damaged regions in the middle of a segment that were skipped (each is at least one record).
    public var corruptRegions = 0
    /// The head file was missing or damaged, so reading restarted at the oldest segment (at worst
    /// this re-sends events, which the collector deduplicates).
    public var headReset = false
}
