import TapwireCore
import TapwireStatistics
import TapwireStore

/// One side of the rich vs text-only comparison: its engagement rate with a Wilson 95% interval.
/// It is the sum of the side's used cells (`UpliftDay`), so engaged never exceeds delivered.
public struct SideEngagement: Sendable, Equatable {
    public var delivered: Int
    public var engaged: Int
    public var rate: Double?
    public var ci95: ConfidenceInterval?

    init(_ side: UpliftDay.Side) {
        delivered = side.delivered
        engaged = side.engaged
        rate = ProportionStatistics.share(engaged, of: delivered)
        ci95 = ProportionStatistics.wilson(successes: engaged, trials: delivered)
    }
}
