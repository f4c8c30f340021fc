import TapwireCore
import TapwireStatistics
import TapwireStore

/// The report split by one dimension's value (`--by`).
public struct ReportGroup: Sendable, Equatable {
    public var dimension: ReportDimension
    public var value: String
    public var categories: [CategoryEngagement]
    public var overall: CategoryEngagement
}
