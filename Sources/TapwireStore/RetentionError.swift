public struct RetentionError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case unexpectedPartition = "retention_unexpected_partition"
        case stuck = "retention_stuck"
        /// The run's lock was lost mid-run (its session ended): another run may have started.
        case lockLost = "retention_lock_lost"
    }
    public var code: Code
    public var message: String
    public var description: String { message }
}
