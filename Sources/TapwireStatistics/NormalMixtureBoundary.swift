import Foundation

/// The two-sided normal mixture boundary of Howard, Ramdas, McAuliffe & Sekhon (2021),
/// "Time-uniform, nonparametric, nonasymptotic confidence sequences", Annals of Statistics
/// 49(2):1055–1080, eq. (14): for a sum S_t whose increments are (sub-)Gaussian with variance
/// process V_t, and any fixed ρ > 0,
///   P(∃t: |S_t| ≥ u(V_t)) ≤ α,  u(v) = √((v + ρ)·log((v + ρ)/(ρ·α²))).
/// It is where the mixture martingale √(ρ/(v + ρ))·exp(S²/(2(v + ρ))) (the likelihood ratio
/// of N(λv, v) against N(0, v), λ mixed over N(0, 1/ρ)) reaches 1/α, and Ville's inequality
/// bounds the chance that it ever does. So a team may look after every hour, for as long as it
/// likes, and the chance that any look excludes the truth stays at most α (docs/regressions.md).
///
/// Applied to an estimate with standard error σ after `time` units of information, the
/// interval is estimate ± σ·u(t)/√t (Eppo and GrowthBook state the same interval; GrowthBook's
/// page prints the logarithm's denominator as ρ + α² where the paper has ρ·α²).
public struct NormalMixtureBoundary: Sendable, Equatable {
    /// The chance that the boundary is ever crossed when nothing changed.
    public var alpha: Double
    /// The mixture's precision, in the units of time: where the boundary is tightest.
    public var rho: Double

    public init(alpha: Double, rho: Double) {
        precondition(alpha > 0 && alpha < 1 && rho > 0, "0 < alpha < 1 and rho > 0")
        self.alpha = alpha
        self.rho = rho
    }

    /// The boundary tightest (relative to a fixed-time interval) near `time`.
    public init(alpha: Double, optimizedAt time: Double) {
        self.init(alpha: alpha, rho: Self.rho(optimizedAt: time, alpha: alpha))
    }

    /// ρ = m / (2·log(1/α) + log(1 + 2·log(1/α))): the approximate minimiser of u(m)/√m over ρ,
    /// as the authors' confseq library (TwoSidedNormalMixture::best_rho), Eppo (with
    /// m = N_tune) and GrowthBook choose it.
    public static func rho(optimizedAt time: Double, alpha: Double) -> Double {
        precondition(time > 0 && alpha > 0 && alpha < 1, "time > 0 and 0 < alpha < 1")
        let twoLog = 2 * Foundation.log(1 / alpha)
        return time / (twoLog + Foundation.log1p(twoLog))
    }

    /// u(v), the bound on |S_v|.
    public func bound(intrinsicTime v: Double) -> Double {
        ((v + rho) * (Foundation.log1p(v / rho) + 2 * Foundation.log(1 / alpha))).squareRoot()
    }

    /// log of the mixture martingale at S = s after time v: at least log(1/α) exactly when
    /// |s| ≥ u(v).
    public func logMixture(sum s: Double, intrinsicTime v: Double) -> Double {
        0.5 * Foundation.log(rho / (v + rho)) + s * s / (2 * (v + rho))
    }

    /// u(t)/√t: how many standard errors the interval extends each side after `time` units of
    /// information (infinite before any).
    public func standardErrors(time t: Double) -> Double {
        guard t > 0 else { return .infinity }
        return ((1 + rho / t) * (Foundation.log1p(t / rho) + 2 * Foundation.log(1 / alpha))).squareRoot()
    }

    /// The anytime-valid interval around `estimate`, whose standard error is `standardError`,
    /// after `time` units of information.
    public func interval(estimate: Double, standardError: Double, time: Double) -> ConfidenceInterval {
        let half = standardError * standardErrors(time: time)
        return ConfidenceInterval(lower: estimate - half, upper: estimate + half)
    }

    /// The always-valid p-value: the smallest α whose boundary the look crosses,
    /// min(1, 1/mixture) with S = (estimate/σ)·√t and v = t. A p-value below α at any look is the
    /// same event as the interval excluding 0 at that look.
    public func alwaysValidPValue(estimate: Double, standardError: Double, time: Double) -> Double {
        guard time > 0, standardError > 0 else { return 1 }
        let s = estimate / standardError * time.squareRoot()
        return min(1, Foundation.exp(-logMixture(sum: s, intrinsicTime: time)))
    }
}
