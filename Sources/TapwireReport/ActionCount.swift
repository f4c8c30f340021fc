import TapwireCore
import TapwireStatistics
import TapwireStore

public struct ActionCount: Sendable, Equatable {
    public var identifier: String
    public var count: Int
    /// count over the engagement base.
    public var rate: Double?
}
