import TapwireCore
import TapwireStatistics
import TapwireStore

/// Dismissals are reported by iOS only for categories registered with customDismissAction;
/// elsewhere the rate is not measurable, which is different from zero.
public struct DismissStats: Sendable, Equatable {
    public var measurable: Bool
    public var count: Int?
    public var rate: Double?
    /// Delivered notifications of the app versions whose manifest makes dismissals measurable.
    public var base: Int?

    public static let notMeasurable = DismissStats(measurable: false, count: nil, rate: nil, base: nil)
}
