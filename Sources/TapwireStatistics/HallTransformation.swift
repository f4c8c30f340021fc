import Foundation

/// Hall (1992), "On the removal of skewness by transformation", JRSS B 54(1):221–228: the
/// studentised estimate U = (θ̂ − θ)/σ̂ of a mean is skewed when the
/// data are; its Edgeworth expansion gives E U ≈ −A/2 and third cumulant ≈ −2A, where
/// A = κ₃(θ̂)/σ³ is the skewness of the estimate itself (γ/√n for one mean). The monotone cubic
///   h(U) = U + A·U²/3 + A²·U³/27 + A/6
/// removes both to order n^(−1/2), so h(U) is nearly N(0, 1) and
///   θ ∈ [θ̂ − σ̂·h⁻¹(z), θ̂ − σ̂·h⁻¹(−z)].
/// Dropping the cubic term gives Johnson's (1978) modified t, whose quadratic is not monotone
/// and cannot always be inverted; Hall's cubic always can, in closed form
/// (h′(U) = (1 + A·U/3)² ≥ 0). docs/statistics-outcomes.md derives the coefficients.
enum HallTransformation {
    /// h⁻¹(y). With a = A/3 and w = y − A/6, h(U) − A/6 = ((1 + aU)³ − 1)/(3a), so
    /// U = (c − 1)/a with c = ∛(1 + 3aw), written as 3w/(c² + c + 1) so that a → 0 is exact (U = w).
    static func inverse(_ y: Double, skewness: Double) -> Double {
        let w = y - skewness / 6
        let c = cbrt(1 + skewness * w)
        return 3 * w / (c * c + c + 1)
    }

    /// The interval for θ from its estimate, the estimate's standard error and its skewness A.
    static func interval(estimate: Double, standardError: Double, skewness: Double, z: Double) -> ConfidenceInterval {
        ConfidenceInterval(lower: estimate - standardError * inverse(z, skewness: skewness),
                           upper: estimate - standardError * inverse(-z, skewness: skewness))
    }
}
