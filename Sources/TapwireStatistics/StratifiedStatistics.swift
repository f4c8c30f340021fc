import Foundation

/// One stratum's 2×2 table: successes and trials of the first group (rich) and of the second
/// (text-only). A stratum is one combination of the dimensions a comparison is adjusted for.
public struct StratumCounts: Sendable, Equatable {
    public var x1: Int, n1: Int, x2: Int, n2: Int

    public init(x1: Int, n1: Int, x2: Int, n2: Int) {
        self.x1 = x1
        self.n1 = n1
        self.x2 = x2
        self.n2 = n2
    }

    /// Both groups present: only such a stratum says anything about the difference.
    public var contributes: Bool { n1 > 0 && n2 > 0 }
    public var isValid: Bool { n1 >= 0 && n2 >= 0 && (0...max(0, n1)).contains(x1) && (0...max(0, n2)).contains(x2) }
}

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

/// How much data a difference needs: the smallest one a test would detect now, and how long
/// until a target one would be detected at the current rate.
public enum DetectionPower {
    /// The 0.80 quantile of the standard normal distribution (80% power).
    public static let z80 = 0.8416212335729143

    /// (z₁₋α/₂ + z₁₋β)·σ₀ with σ₀ the standard error of the estimate under no difference: the
    /// usual normal-approximation minimum detectable effect for a two-sided test at α = 0.05 with
    /// 80% power, with the alternative's variance taken as the null's (Bloom 1995, "Minimum
    /// detectable effects", Evaluation Review 19:547). Nil when σ₀ is 0 or not finite: no
    /// variation, nothing to detect against.
    public static func minimumDetectableDifference(nullVariance: Double, zAlpha: Double = ProportionStatistics.z95,
                                                   zPower: Double = z80) -> Double? {
        guard nullVariance > 0, nullVariance.isFinite else { return nil }
        return (zAlpha + zPower) * nullVariance.squareRoot()
    }

    /// Days until `target` (a fraction) is detectable when `samples` so far give `mdd`, at
    /// `samplesPerDay` more, with the same mix of strata and rates: the variance falls as
    /// 1/samples, so the detectable difference after t days is mdd·√(N / (N + r·t)), and
    /// t = N·((mdd / |target|)² − 1) / r. 0 when already detectable; nil when the target is 0,
    /// nothing arrives, or there is no estimate yet.
    public static func daysToDetect(target: Double, mdd: Double?, samples: Int, samplesPerDay: Double) -> Double? {
        guard let mdd, mdd.isFinite, target.isFinite, target != 0, samples > 0 else { return nil }
        let ratio = mdd / abs(target)
        if ratio <= 1 { return 0 }
        guard samplesPerDay > 0, samplesPerDay.isFinite else { return nil }
        return Double(samples) * (ratio * ratio - 1) / samplesPerDay
    }
}
