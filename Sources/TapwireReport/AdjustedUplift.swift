import TapwireCore
import TapwireStatistics
import TapwireStore

/// The rich vs text-only difference adjusted for campaign × platform × UTC day (and for category
/// in "All categories"): Mantel–Haenszel over the strata of the used cells, Sato's interval, the
/// CMH test. Withheld (with the reason) only when no stratum has both sides, or below the minimum
/// sample counted over the strata that have.
public struct AdjustedUplift: Sendable, Equatable {
    public static let method = "mantel-haenszel"

    /// Nil when no stratum has both sides.
    public var estimate: MantelHaenszelRiskDifference?
    /// Strata with both sides present.
    public var strata: Int
    /// Delivered in strata with only one side: they say nothing about the difference.
    public var excludedDelivered: Int
    /// Why the figures are withheld, nil when they are shown.
    public var reason: String?
    /// The same difference read day after day: valid however often the report is opened.
    public var anytime = AnytimeAdjusted()

    public var sufficient: Bool { reason == nil }
    public var difference: Double? { sufficient ? estimate?.difference : nil }
    public var ci95: ConfidenceInterval? { sufficient ? estimate?.ci95 : nil }
    public var pValue: Double? { sufficient ? estimate?.pValue : nil }

    /// `total`: the sums over every day of the range; `dimensions` names the strata in the reason
    /// ("campaign × platform × UTC day").
    init(total: UpliftDay, dimensions: String, minimum: MinimumSample) {
        strata = total.sums.strata
        excludedDelivered = total.sums.excludedTrials
        estimate = MantelHaenszelRiskDifference.estimate(total.sums)
        guard estimate != nil else {
            reason = "no \(dimensions) stratum has both rich and text-only deliveries"
            return
        }
        let both = total.bothSides
        reason = minimum.insufficiency(x1: both.x1, n1: both.n1, x2: both.x2, n2: both.n2).map { "in strata with both sides, " + $0 }
    }
}
