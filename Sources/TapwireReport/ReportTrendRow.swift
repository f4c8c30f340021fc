import TapwireCore
import TapwireStatistics

/// Delivered and engaged of one category on one local day: the daily engagement line.
public struct ReportTrendRow: Sendable, Equatable {
    public var group: String
    public var category: String
    /// The local date, YYYY-MM-DD.
    public var day: String
    public var delivered: Int
    public var engaged: Int

    public init(group: String = "", category: String, day: String, delivered: Int, engaged: Int) {
        self.group = group
        self.category = category
        self.day = day
        self.delivered = delivered
        self.engaged = engaged
    }
}
