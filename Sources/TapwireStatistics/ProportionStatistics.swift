import Foundation

/// Proportion statistics for engagement rates. Wilson and Newcombe are used (not the Wald
/// interval) because they keep nominal coverage near 0 and 1 and never leave [0, 1].
public enum ProportionStatistics {
    /// The 0.975 quantile of the standard normal distribution (two-sided 95%).
    public static let z95 = 1.959963984540054

    /// x / n as a share, or nil when it is not one: n is 0, or x lies outside 0…n (more answers
    /// than notifications, which no rate may hide by going over 100%).
    public static func share(_ x: Int, of n: Int) -> Double? {
        guard n > 0, (0...n).contains(x) else { return nil }
        return Double(x) / Double(n)
    }

    /// Wilson (1927) score interval for x successes in n trials, without continuity correction
    /// (method 3 of Newcombe 1998a). Nil when n = 0: there is no proportion to bound.
    public static func wilson(successes x: Int, trials n: Int, z: Double = z95) -> ConfidenceInterval? {
        guard n > 0, x >= 0, x <= n else { return nil }
        let nd = Double(n)
        let p = Double(x) / nd
        let z2 = z * z
        let denominator = nd + z2
        let centre = (Double(x) + z2 / 2) / denominator
        let half = z * nd.squareRoot() / denominator * (p * (1 - p) + z2 / (4 * nd)).squareRoot()
        // At x = 0 and x = n the exact bound is 0 or 1; rounding must not move it off.
        let lower = x == 0 ? 0 : max(0, centre - half)
        let upper = x == n ? 1 : min(1, centre + half)
        return ConfidenceInterval(lower: lower, upper: upper)
    }

    /// Newcombe's hybrid score interval (method 10 of Newcombe 1998b) for p1 − p2 of two
    /// independent proportions, built from the two Wilson intervals. Nil when either n is 0.
    public static func newcombeDifference(x1: Int, n1: Int, x2: Int, n2: Int, z: Double = z95) -> ConfidenceInterval? {
        guard let w1 = wilson(successes: x1, trials: n1, z: z), let w2 = wilson(successes: x2, trials: n2, z: z) else { return nil }
        let p1 = Double(x1) / Double(n1)
        let p2 = Double(x2) / Double(n2)
        let d = p1 - p2
        let delta = ((p1 - w1.lower) * (p1 - w1.lower) + (w2.upper - p2) * (w2.upper - p2)).squareRoot()
        let epsilon = ((w1.upper - p1) * (w1.upper - p1) + (p2 - w2.lower) * (p2 - w2.lower)).squareRoot()
        return ConfidenceInterval(lower: max(-1, d - delta), upper: min(1, d + epsilon))
    }

    /// The pooled two-proportion z statistic (its square is Pearson's χ² without continuity
    /// correction). Nil when a side is empty or the pooled proportion is 0 or 1 (no variance).
    public static func zStatistic(x1: Int, n1: Int, x2: Int, n2: Int) -> Double? {
        guard n1 > 0, n2 > 0, (0...n1).contains(x1), (0...n2).contains(x2) else { return nil }
        let pooled = Double(x1 + x2) / Double(n1 + n2)
        let variance = pooled * (1 - pooled) * (1 / Double(n1) + 1 / Double(n2))
        guard variance > 0 else { return nil }
        return (Double(x1) / Double(n1) - Double(x2) / Double(n2)) / variance.squareRoot()
    }

    /// Two-sided p-value of the pooled two-proportion z-test. When both sides are all 0 or all
    /// 1 there is no evidence of a difference, so the p-value is 1.
    public static func twoProportionPValue(x1: Int, n1: Int, x2: Int, n2: Int) -> Double? {
        guard n1 > 0, n2 > 0, (0...n1).contains(x1), (0...n2).contains(x2) else { return nil }
        guard let z = zStatistic(x1: x1, n1: n1, x2: x2, n2: n2) else { return 1 }
        return twoSidedNormalPValue(z)
    }

    /// P(|Z| ≥ |z|) for a standard normal Z: erfc(|z|/√2), accurate far into the tail.
    public static func twoSidedNormalPValue(_ z: Double) -> Double { erfc(abs(z) / 2.0.squareRoot()) }

    /// (p1 − p2) / p2: how much higher the first rate is, relative to the second. Nil when
    /// the second rate is 0 (any lift over nothing is unbounded) or a side is empty.
    public static func relativeLift(x1: Int, n1: Int, x2: Int, n2: Int) -> Double? {
        guard n1 > 0, n2 > 0, x2 > 0 else { return nil }
        let p1 = Double(x1) / Double(n1)
        let p2 = Double(x2) / Double(n2)
        return (p1 - p2) / p2
    }
}
