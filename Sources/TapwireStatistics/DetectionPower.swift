import Foundation

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
