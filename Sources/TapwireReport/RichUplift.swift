import TapwireCore
import TapwireStatistics
import TapwireStore

/// Rich (media present when the user saw it) against text-only: the pooled difference with
/// Newcombe's interval, the relative lift and a z-test p-value; the difference adjusted for the
/// strata; whether pooling misleads (confounded); and how long until it is known.
public struct RichUplift: Sendable, Equatable {
    public var rich: SideEngagement
    public var textOnly: SideEngagement
    /// Pooled over every used cell: what the two groups saw, mix and all.
    public var comparison: ProportionComparison
    public var adjusted: AdjustedUplift
    /// The pooled and adjusted differences disagree in sign, or the pooled one lies outside the
    /// adjusted 95% interval: the mix of campaigns, platforms or days moves the pooled figure.
    public var confounded: Bool
    public var detection: UpliftDetection
    /// Deliveries left out of every rich vs text-only figure because their cell's engagement
    /// exceeds them (see `UpliftDay`).
    public var notMeaningfulDelivered: Int
    /// Engaged responses left out because their cell has no delivery (a `sent`-only category,
    /// a version that posts no `delivered`).
    public var engagedWithoutDeliveries: Int

    /// `days`: each UTC day's sums over its strata, in order (a day the range cuts is one
    /// stratum); `dimensions` names the strata; `rangeDays` is the report's length, so the current
    /// volume is delivered per day in the strata with both sides.
    init(days: [(day: String, sums: UpliftDay)], dimensions: String, minimum: MinimumSample, target: Double?, rangeDays: Double) {
        let total = days.reduce(UpliftDay()) { $0 + $1.sums }
        rich = SideEngagement(total.rich)
        textOnly = SideEngagement(total.textOnly)
        comparison = ProportionComparison(x1: rich.engaged, n1: rich.delivered, x2: textOnly.engaged, n2: textOnly.delivered,
                                          minimum: minimum)
        adjusted = AdjustedUplift(total: total, dimensions: dimensions, minimum: minimum)
        adjusted.anytime = AnytimeAdjusted(days: days, shown: adjusted.sufficient, minimum: minimum)
        confounded = Self.confounded(pooled: comparison.difference, adjusted: adjusted)
        let samples = total.bothSides.n1 + total.bothSides.n2
        detection = Self.detection(adjusted: adjusted, target: target,
                                   samplesPerDay: rangeDays > 0 ? Double(samples) / rangeDays : 0, samples: samples)
        notMeaningfulDelivered = total.notMeaningfulDelivered
        engagedWithoutDeliveries = total.engagedWithoutDeliveries
    }

    static func confounded(pooled: Double?, adjusted: AdjustedUplift) -> Bool {
        guard let pooled, let difference = adjusted.difference, let ci = adjusted.ci95 else { return false }
        return pooled * difference < 0 || !ci.contains(pooled)
    }

    /// The target is the one given, else the adjusted difference when significant at 0.05, else
    /// 2 pp. Days assume the deliveries to come keep the current mix of strata and sides.
    static func detection(adjusted: AdjustedUplift, target: Double?, samplesPerDay: Double, samples: Int) -> UpliftDetection {
        let chosen: (value: Double, source: UpliftDetection.TargetSource)
        if let target {
            chosen = (target, .given)
        } else if let difference = adjusted.difference, let p = adjusted.pValue, p < 0.05, difference != 0 {
            chosen = (difference, .observed)
        } else {
            chosen = (UpliftDetection.defaultTarget, .default)
        }
        let mdd = adjusted.estimate.flatMap { DetectionPower.minimumDetectableDifference(nullVariance: $0.nullVariance) }
        return UpliftDetection(minimumDetectableDifference: mdd, target: chosen.value, targetSource: chosen.source,
                               daysToDetect: DetectionPower.daysToDetect(target: chosen.value, mdd: mdd, samples: samples,
                                                                         samplesPerDay: samplesPerDay))
    }

    public var sufficient: Bool { comparison.sufficient }
    /// Pooled rich − text-only in percentage points.
    public var differencePoints: Double? { comparison.difference.map { $0 * 100 } }
    public var differenceCIPoints: ConfidenceInterval? {
        comparison.differenceCI.map { ConfidenceInterval(lower: $0.lower * 100, upper: $0.upper * 100) }
    }
    public var relativeLift: Double? { comparison.relativeLift }
    public var pValue: Double? { comparison.pValue }
}
