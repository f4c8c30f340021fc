/// The counters of a finest row and of rollup_totals (migration 0010 says what each counts).
public struct RollupCounts: Hashable, Sendable {
    public var delivered: Int64 = 0
    public var sent: Int64 = 0
    public var mediaRequested: Int64 = 0
    public var opens: Int64 = 0
    public var dismissals: Int64 = 0
    public var actions: Int64 = 0
    public var replies: Int64 = 0
    public init() {}

    public mutating func add(_ other: RollupCounts) {
        delivered += other.delivered
        sent += other.sent
        mediaRequested += other.mediaRequested
        opens += other.opens
        dismissals += other.dismissals
        actions += other.actions
        replies += other.replies
    }

    public mutating func subtract(_ other: RollupCounts) {
        delivered -= other.delivered
        sent -= other.sent
        mediaRequested -= other.mediaRequested
        opens -= other.opens
        dismissals -= other.dismissals
        actions -= other.actions
        replies -= other.replies
    }

    public var isZero: Bool { self == RollupCounts() }
}
