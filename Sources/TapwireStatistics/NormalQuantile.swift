import Foundation

/// Quantiles of the standard normal distribution, for intervals at any confidence (not only the
/// 95% of `ProportionStatistics.z95`). The upper tail is Q(z) = erfc(z/√2)/2; its inverse starts
/// from Abramowitz & Stegun (1964) 26.2.23 (error below 4.5·10⁻⁴) and is refined by Halley steps
/// on Q itself, so the result is as accurate as the C library's erfc (a few ulps).
public enum NormalQuantile {
    /// z with P(Z > z) = q for a standard normal Z. Nil unless 0 < q < 1.
    public static func upper(tail q: Double) -> Double? {
        guard q > 0, q < 1 else { return nil }
        if q == 0.5 { return 0 }
        if q > 0.5 { return upper(tail: 1 - q).map { -$0 } }
        let t = (-2 * log(q)).squareRoot()
        var z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t)
        for _ in 0..<8 {
            // Halley on F(z) = Q(z) − q, F′ = −φ(z), F″ = z·φ(z): z ← z + u/(1 − z·u/2), u = F/φ.
            let density = exp(-0.5 * z * z) / (2 * Double.pi).squareRoot()
            let u = (0.5 * erfc(z / 2.0.squareRoot()) - q) / density
            let step = u / (1 - z * u / 2)
            z += step
            if abs(step) <= 1e-15 * max(1, abs(z)) { break }
        }
        return z
    }

    /// The z of a two-sided interval at `confidence` (0.95 → 1.959963984540054). Nil unless
    /// 0 < confidence < 1.
    public static func twoSided(confidence: Double) -> Double? {
        guard confidence > 0, confidence < 1 else { return nil }
        return upper(tail: (1 - confidence) / 2)
    }
}
