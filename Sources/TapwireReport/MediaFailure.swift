import TapwireCore
import TapwireStatistics
import TapwireStore

/// Media the payload asked for that iOS did not show (download failed, timed out, too large).
public struct MediaFailure: Sendable, Equatable {
    public var requested: Int
    public var notShown: Int
    public var rate: Double? { requested > 0 ? Double(notShown) / Double(requested) : nil }
}
