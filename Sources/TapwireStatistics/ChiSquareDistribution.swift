import Foundation

/// The χ² distribution's upper tail, for p-values of goodness-of-fit tests. P(χ²ₖ > x) is the
/// regularised upper incomplete gamma function Q(k/2, x/2) (Abramowitz & Stegun 1964, 26.4.19
/// with 6.5.3): for k = 1 it is erfc(√(x/2)), for k = 2 exp(−x/2), and otherwise it is computed as
/// Numerical Recipes (Press et al. 2007, §6.2, gammp/gammq) does: the series for P(a, x) below
/// x = a + 1 (where Q is not small, so 1 − P loses nothing) and Legendre's continued fraction for
/// Q (modified Lentz) above, so far tails keep their relative accuracy.
public enum ChiSquareDistribution {
    /// P(χ²ₖ > x). Nil unless k ≥ 1 and x is a number; 1 for x ≤ 0.
    public static func survival(_ x: Double, degreesOfFreedom k: Int) -> Double? {
        guard k >= 1, !x.isNaN else { return nil }
        if x <= 0 { return 1 }
        if x == .infinity { return 0 }
        switch k {
        case 1: return erfc((x / 2).squareRoot())
        case 2: return exp(-x / 2)
        default: return regularizedUpperGamma(Double(k) / 2, x / 2)
        }
    }

    /// Q(a, x) = Γ(a, x)/Γ(a) for a > 0, x > 0.
    static func regularizedUpperGamma(_ a: Double, _ x: Double) -> Double {
        let logPrefix = a * log(x) - x - logGamma(a) // log(xᵃ·e⁻ˣ/Γ(a))
        if x < a + 1 {
            // P(a, x) = xᵃe⁻ˣ/Γ(a) · Σₙ xⁿ/(a(a+1)…(a+n)).
            var term = 1 / a, sum = term, ap = a
            for _ in 0..<10_000 {
                ap += 1
                term *= x / ap
                sum += term
                if abs(term) < abs(sum) * 1e-17 { break }
            }
            return max(0, 1 - sum * exp(logPrefix))
        }
        // Q(a, x) = xᵃe⁻ˣ/Γ(a) · 1/(x + 1 − a − 1·(1 − a)/(x + 3 − a − 2·(2 − a)/(x + 5 − a − …))).
        let tiny = 1e-300
        var b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d
        for i in 1...10_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return min(1, exp(logPrefix) * h)
    }

    /// log Γ(x) for x > 0, from the C library's reentrant lgamma_r (the two-result overload), so
    /// concurrent callers never share its sign variable.
    static func logGamma(_ x: Double) -> Double {
        let result: (Double, Int) = lgamma(x)
        return result.0
    }
}
