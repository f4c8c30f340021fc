import TapwireCore

/// A partition of events that retention drops (or, in a dry run, would drop).
public struct RetainedPartition: Sendable, Equatable {
    public var name: String
    public var rangeStart: Timestamp
    public var rangeEnd: Timestamp
    /// The planner's estimate; nil when the partition was never analyzed.
    public var estimatedRows: Int64?
}
