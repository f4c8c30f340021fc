import Foundation

/// What one transaction did, for metrics.
public struct CommitStats: Sendable {
    public var requests: Int
    public var events: Int
    public var stored: Int
    public var duplicates: Int
    public var seconds: Double
}
