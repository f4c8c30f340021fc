import TapwireCore
import TapwireStatistics
import TapwireStore

public struct TimeToResponse: Sendable, Equatable {
    /// Engaged responses that carried their delivery time.
    public var samples: Int
    public var p50Seconds: Double?
    public var p90Seconds: Double?
}
