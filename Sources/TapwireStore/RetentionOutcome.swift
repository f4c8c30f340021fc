import TapwireCore

/// What one retention run did, or would do with `dryRun`.
public struct RetentionOutcome: Sendable, Equatable {
    public var dryRun: Bool
    /// False when another run held the lock: this one did nothing.
    public var ran: Bool
    public var now: Timestamp
    public var partitionCutoff: Timestamp
    public var idCutoff: Timestamp
    /// Partitions dropped (dry run: due), including ones an interrupted run had left.
    public var partitions: [RetainedPartition]
    /// Names of partitions an earlier, interrupted run had started dropping and this one finished.
    public var resumed: [String]
    /// Dedup ids deleted (dry run: that would be).
    public var eventIdsDeleted: Int64
    /// Conversion credits of the dropped days, and notifications' conversion rows left with no
    /// credit, deleted (dry run: that would be); docs/outcomes.md.
    public var conversionCreditsDeleted: Int64 = 0
    public var notificationConversionsDeleted: Int64 = 0
    /// Install ids retention forgets with their events (dry run: would): devices whose every
    /// conversion was dropped, and holdout assignments whose window closed before the horizon.
    public var attributionDevicesDeleted: Int64 = 0
    public var holdoutAssignmentsDeleted: Int64 = 0
}
