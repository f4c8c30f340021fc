public struct RetentionError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case unexpectedPartition = "retention_unexpected_partition"
        case stuck = "retention_stuck"
    }
    public var code: Code
    public var message: String
    public var description: String { message }
}
