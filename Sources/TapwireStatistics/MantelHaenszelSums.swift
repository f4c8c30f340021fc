import Foundation

/// The sums over strata that the Mantel–Haenszel estimate, Sato's variance and the CMH test are
/// made of (the formulas are on `MantelHaenszelRiskDifference.estimate`). Each stratum adds its
/// own terms, so a sequence of looks can keep the sums of the strata that no longer change and
/// add only the open ones at each look; the formulas exist once.
public struct MantelHaenszelSums: Sendable, Equatable {
    /// Σ n1·n2/N: Cochran's weights, the effective number of trials behind the difference.
    public private(set) var weights = 0.0
    public private(set) var numerator = 0.0
    /// Σ x2·n1/N: the second group's rate weighted as the difference weighs it, so
    /// secondGroupWeighted / weights is the second group's rate standardised to the strata's
    /// weights (what the regression rule's minimum drop is a share of).
    public private(set) var secondGroupWeighted = 0.0
    public private(set) var p = 0.0
    public private(set) var q = 0.0
    public private(set) var nullSum = 0.0
    public private(set) var deviation = 0.0
    /// Strata with both groups present.
    public private(set) var strata = 0
    /// Trials in strata with only one group present.
    public private(set) var excludedTrials = 0

    public init() {}

    /// Sums already added up elsewhere (rollup_uplift_days keeps them per category and day).
    public init(weights: Double, numerator: Double, secondGroupWeighted: Double = 0, p: Double, q: Double, nullSum: Double,
                deviation: Double, strata: Int, excludedTrials: Int) {
        self.weights = weights
        self.numerator = numerator
        self.secondGroupWeighted = secondGroupWeighted
        self.p = p
        self.q = q
        self.nullSum = nullSum
        self.deviation = deviation
        self.strata = strata
        self.excludedTrials = excludedTrials
    }

    /// The sums over two disjoint sets of strata.
    public static func + (a: MantelHaenszelSums, b: MantelHaenszelSums) -> MantelHaenszelSums {
        MantelHaenszelSums(weights: a.weights + b.weights, numerator: a.numerator + b.numerator,
                           secondGroupWeighted: a.secondGroupWeighted + b.secondGroupWeighted, p: a.p + b.p, q: a.q + b.q,
                           nullSum: a.nullSum + b.nullSum, deviation: a.deviation + b.deviation, strata: a.strata + b.strata,
                           excludedTrials: a.excludedTrials + b.excludedTrials)
    }

    /// RD_MH; nil when no stratum has both groups.
    public var difference: Double? { strata > 0 && weights > 0 ? numerator / weights : nil }

    /// Sato's variance of `difference`.
    public func satoVariance(difference: Double) -> Double {
        // Rounding can leave a variance of exactly zero a hair below it.
        max(0, (difference * p + q) / (weights * weights))
    }

    /// The variance of the difference when there is none (hypergeometric, each stratum's margins fixed).
    public var nullVariance: Double { nullSum / (weights * weights) }

    /// Adds one stratum's terms. The stratum must be valid (`StratumCounts.isValid`).
    public mutating func add(_ s: StratumCounts) {
        guard s.contributes else {
            excludedTrials += s.n1 + s.n2
            return
        }
        strata += 1
        let a = Double(s.x1), n1 = Double(s.n1), c = Double(s.x2), n2 = Double(s.n2)
        let total = n1 + n2
        weights += n1 * n2 / total
        numerator += (a * n2 - c * n1) / total
        secondGroupWeighted += c * n1 / total
        p += (n1 * n1 * c - n2 * n2 * a + n1 * n2 * (n2 - n1) / 2) / (total * total)
        q += (a * (n2 - c) + c * (n1 - a)) / (2 * total)
        let m = a + c
        deviation += a - n1 * m / total
        if total > 1 { nullSum += n1 * n2 * m * (total - m) / (total * total * (total - 1)) }
    }
}
