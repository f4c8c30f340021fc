import Foundation

/// A confidence interval for a mean that stays honest on skewed, zero-heavy data (revenue per
/// delivered notification, per assigned device), from four additive sums only: n, Σx, Σx², Σx³,
/// which rollups can store and add. Hall's (1992) transformation of the studentised mean
/// (`HallTransformation`), as Zhou & Dinh (2005), "Nonparametric confidence intervals for the
/// one- and two-sample problems", Biostatistics 6(2):187–200, study it beside Johnson's (1978)
/// modified t ("Modified t tests and confidence intervals for asymmetrical populations", JASA
/// 73:536–544): Johnson's skewness correction, made monotone so that it always inverts. The plain t
/// interval is symmetric around x̄, and on right-skewed data it misses mostly above (a sample
/// without its rare large values has a small mean and a small variance together).
/// docs/statistics-outcomes.md, "Value per delivered".
public enum SkewAdjustedMean {
    /// What the interval needs of a sample: n, x̄, s² = Σ(x − x̄)²/(n − 1) and
    /// μ̂₃ = Σ(x − x̄)³/n. Made only from sums (`moments(count:…)`), which check them.
    public struct Moments: Sendable, Equatable {
        public var count: Int
        public var mean: Double
        public var variance: Double
        public var thirdCentralMoment: Double

        /// The standard error of the mean, s/√n.
        public var standardError: Double { (variance / Double(count)).squareRoot() }
        /// The third cumulant of the mean, μ̂₃/n² (the mean of n draws has κ₃ = μ₃/n²).
        public var meanThirdCumulant: Double { thirdCentralMoment / (Double(count) * Double(count)) }
        /// The sample's skewness g₁ = μ̂₃/m₂^{3/2}, m₂ = Σ(x − x̄)²/n (the moment estimator of the
        /// G₁ that Cochran's rule reads, `SkewedSampleSize`); 0 without variance.
        public var skewness: Double {
            let m2 = variance * Double(count - 1) / Double(count)
            return m2 > 0 ? thirdCentralMoment / (m2 * m2.squareRoot()) : 0
        }
    }

    /// The moments from sums in Double. Central moments are formed as Σx² − x̄·Σx and
    /// Σx³ − x̄·(3Σx² − 2x̄·Σx): each carries a relative error of about ε·(1 + x̄²/σ²) (and
    /// ε·(1 + |x̄|/σ)³ for μ̂₃ against σ³), ε = 2⁻⁵². Zero-heavy revenue has σ > x̄, so the loss is
    /// a few ulps even at n = 10M; only values nearly equal to each other far from 0 (σ/|x̄| below
    /// about 10⁻⁴) lose digits, and for those the `Decimal` overload
    /// (`moments(count:decimalSum:decimalSumOfSquares:decimalSumOfCubes:)`) keeps 38. A variance
    /// within rounding of 0 (below 16·ε·Σx²) counts as 0. Nil when n < 2 (no spread to estimate), a sum is not
    /// finite, or the sums are inconsistent (Σx² below (Σx)²/n beyond rounding: not one sample).
    public static func moments(count n: Int, sum: Double, sumOfSquares: Double, sumOfCubes: Double) -> Moments? {
        guard n >= 2, sum.isFinite, sumOfSquares.isFinite, sumOfCubes.isFinite, sumOfSquares >= 0 else { return nil }
        let nd = Double(n)
        let mean = sum / nd
        var m2 = sumOfSquares - mean * sum
        let rounding = 16 * Double.ulpOfOne * sumOfSquares
        guard m2 >= -rounding else { return nil }
        if m2 <= rounding { m2 = 0 }
        let m3 = m2 == 0 ? 0 : sumOfCubes - mean * (3 * sumOfSquares - 2 * mean * sum)
        return Moments(count: n, mean: mean, variance: m2 / (nd - 1), thirdCentralMoment: m3 / nd)
    }

    /// The moments from exact decimal sums (PostgreSQL `numeric` read as text): the central sums
    /// n·Σx² − (Σx)² and n²·Σx³ − 3n·Σx·Σx² + 2(Σx)³ are formed in Foundation's `Decimal`
    /// (38 significant digits), so no cancellation reaches them until they become Double. Nil as
    /// for the Double overload; a variance of exactly 0 is 0.
    public static func moments(count n: Int, decimalSum sum: Decimal, decimalSumOfSquares sumOfSquares: Decimal,
                               decimalSumOfCubes sumOfCubes: Decimal) -> Moments? {
        guard n >= 2, !sum.isNaN, !sumOfSquares.isNaN, !sumOfCubes.isNaN, sumOfSquares >= 0 else { return nil }
        let nd = Decimal(n)
        let centredSquares = nd * sumOfSquares - sum * sum // n·M₂
        guard centredSquares >= 0 else { return nil }
        let centredCubes = nd * nd * sumOfCubes - 3 * nd * sum * sumOfSquares + 2 * sum * sum * sum // n²·M₃
        func double(_ d: Decimal) -> Double { NSDecimalNumber(decimal: d).doubleValue }
        let count = Double(n)
        return Moments(count: n, mean: double(sum / nd), variance: double(centredSquares / nd) / (count - 1),
                       thirdCentralMoment: centredSquares == 0 ? 0 : double(centredCubes / (nd * nd)) / count)
    }

    /// The skew-adjusted interval for the mean at `confidence` (two-sided). Nil when there is
    /// no variance (every value equal: no spread to build an interval from) or the confidence is
    /// not in (0, 1).
    public static func interval(_ m: Moments, confidence: Double = 0.95) -> ConfidenceInterval? {
        guard m.count >= 2, m.variance > 0, m.variance.isFinite, let z = NormalQuantile.twoSided(confidence: confidence) else { return nil }
        let se = m.standardError
        return HallTransformation.interval(estimate: m.mean, standardError: se,
                                           skewness: m.meanThirdCumulant / (se * se * se), z: z)
    }

    /// The interval from Double sums (see `moments` for their precision). Nil when n < 2, there is
    /// no variance, or the sums are not those of one sample.
    public static func interval(count: Int, sum: Double, sumOfSquares: Double, sumOfCubes: Double,
                                confidence: Double = 0.95) -> ConfidenceInterval? {
        moments(count: count, sum: sum, sumOfSquares: sumOfSquares, sumOfCubes: sumOfCubes).flatMap { interval($0, confidence: confidence) }
    }

    /// The interval from exact decimal sums (labelled apart from the Double overload, so that a
    /// literal never picks one by accident).
    public static func interval(count: Int, decimalSum sum: Decimal, decimalSumOfSquares sumOfSquares: Decimal,
                                decimalSumOfCubes sumOfCubes: Decimal, confidence: Double = 0.95) -> ConfidenceInterval? {
        moments(count: count, decimalSum: sum, decimalSumOfSquares: sumOfSquares, decimalSumOfCubes: sumOfCubes)
            .flatMap { interval($0, confidence: confidence) }
    }

    /// The plain (Wald) interval x̄ ± z·s/√n: what the skew-adjusted one is measured against.
    public static func symmetricInterval(_ m: Moments, confidence: Double = 0.95) -> ConfidenceInterval? {
        guard m.count >= 2, m.variance > 0, m.variance.isFinite, let z = NormalQuantile.twoSided(confidence: confidence) else { return nil }
        let half = z * m.standardError
        return ConfidenceInterval(lower: m.mean - half, upper: m.mean + half)
    }
}
