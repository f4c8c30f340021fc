import Foundation

/// What one flush did.
public struct FlushReport: Sendable, Equatable {
    /// HTTP requests made for events (not counting the manifest).
    public var requests = 0
    public var accepted = 0
    public var duplicates = 0
    public var rejected: [RejectedEvent] = []
    /// Events still queued when the flush ended.
    public var remaining = 0
    /// Set when the flush stopped to wait: the reason and how long until the next attempt.
    public var waitReason: WaitReason?
    public var retryIn: Double?

    public init() {}
}
