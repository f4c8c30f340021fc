import TapwireCore
import TapwireStatistics
import TapwireStore

public struct DailyPoint: Sendable, Equatable {
    /// The local date, YYYY-MM-DD.
    public var date: String
    public var delivered: Int
    public var engaged: Int
}
