import Foundation

/// The Mantel–Haenszel estimate of a risk difference common to several strata, with Sato's
/// variance and the Cochran–Mantel–Haenszel test. Comparing within strata first is what keeps
/// a difference in mix (rich sent mostly in one campaign) from posing as a difference in effect.
public struct MantelHaenszelRiskDifference: Sendable, Equatable {
    /// p1 − p2 adjusted for the strata (a fraction).
    public var difference: Double
    /// Sato's (1989) variance of `difference`.
    public var variance: Double
    public var ci95: ConfidenceInterval
    /// Two-sided p-value of the uncorrected Cochran–Mantel–Haenszel test of no difference.
    public var pValue: Double
    /// The CMH χ² statistic (1 df), uncorrected.
    public var chiSquare: Double?
    /// The variance of `difference` when there is no difference (hypergeometric, conditional on
    /// each stratum's margins): the scale of the CMH test, used for its power.
    public var nullVariance: Double
    /// Strata with both groups present (the others contribute nothing).
    public var strata: Int
    /// Trials in strata with only one group present.
    public var excludedTrials: Int

    /// Nil when no stratum has both groups, or when a stratum has successes outside 0…trials.
    ///
    /// With stratum k holding a = x1 successes of n1, c = x2 of n2, N = n1 + n2 and Cochran's
    /// weight w = n1·n2/N (Mantel & Haenszel 1959; Greenland & Robins 1985, Biometrics 41:55;
    /// Rothman, Greenland & Lash, Modern Epidemiology, 3rd ed., ch. 15):
    ///   RD_MH = Σ (a·n2 − c·n1)/N / Σ w.
    /// Sato (1989, Biometrics 45:1323), the variance that stays consistent both for a few large
    /// strata and for many sparse ones (as in Modern Epidemiology, ch. 15, and Agresti,
    /// Categorical Data Analysis, 3rd ed., 2013, p. 231):
    ///   Var = (RD_MH·P + Q) / (Σ w)², P = Σ (n1²·c − n2²·a + n1·n2·(n2 − n1)/2) / N²,
    ///   Q = Σ (a·(n2 − c) + c·(n1 − a)) / (2N).
    /// The 95% interval is RD_MH ± 1.96·√Var.
    /// The test is Cochran–Mantel–Haenszel without continuity correction (Mantel & Haenszel 1959,
    /// JNCI 22:719; the form Agresti 2013 and R's mantelhaen.test(correct = FALSE) use):
    ///   χ² = (Σ (a − n1·m/N))² / Σ n1·n2·m·(N − m) / (N²·(N − 1)), m = a + c,
    /// whose numerator is (RD_MH·Σ w)², so estimate and test agree in sign.
    public static func estimate(_ strata: [StratumCounts], z: Double = ProportionStatistics.z95) -> MantelHaenszelRiskDifference? {
        guard strata.allSatisfy(\.isValid) else { return nil }
        var sums = MantelHaenszelSums()
        for s in strata { sums.add(s) }
        return estimate(sums, z: z)
    }

    /// The estimate from strata already summed (see `MantelHaenszelSums`): what a sequential
    /// look computes after replacing only the strata that changed. Nil when no stratum had both
    /// groups.
    public static func estimate(_ sums: MantelHaenszelSums, z: Double = ProportionStatistics.z95) -> MantelHaenszelRiskDifference? {
        guard let difference = sums.difference else { return nil }
        let variance = sums.satoVariance(difference: difference)
        let half = z * variance.squareRoot()
        let chiSquare = sums.nullSum > 0 ? sums.deviation * sums.deviation / sums.nullSum : nil
        // No variance under the null (every stratum all successes or all failures): no evidence.
        let pValue = sums.nullSum > 0 ? ProportionStatistics.twoSidedNormalPValue(sums.deviation / sums.nullSum.squareRoot()) : 1
        return MantelHaenszelRiskDifference(
            difference: difference, variance: variance,
            ci95: ConfidenceInterval(lower: max(-1, difference - half), upper: min(1, difference + half)),
            pValue: pValue, chiSquare: chiSquare, nullVariance: sums.nullVariance,
            strata: sums.strata, excludedTrials: sums.excludedTrials)
    }
}
