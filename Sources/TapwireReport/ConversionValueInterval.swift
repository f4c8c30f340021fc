import Foundation
import TapwireStatistics

/// The 95% interval of value per delivered notification, from the four sums the rollups keep
/// (n, Σx, Σx², Σx³: notifications without a conversion count as 0). One call, so the
/// skewness-corrected interval (`SkewAdjustedMean`, Johnson 1978, on branch outcomes-stats) takes
/// its place by changing `interval` alone; until then it is Student's t interval, x̄ ± t·s/√n,
/// which ignores Σx³ and is too narrow below the mean on right-skewed revenue (docs/reports.md).
enum ConversionValueInterval {
    /// How the JSON names the interval in use.
    static let method = "student-t"

    static func interval(count: Int, sum: Double, sumOfSquares: Double, sumOfCubes: Double) -> ConfidenceInterval? {
        studentT(count: count, sum: sum, sumOfSquares: sumOfSquares)
    }

    /// x̄ ± t(0.975, n − 1)·s/√n, s² = (Σx² − (Σx)²/n)/(n − 1). Nil below two notifications, and
    /// when every value is equal (no spread to build an interval from).
    static func studentT(count n: Int, sum: Double, sumOfSquares: Double) -> ConfidenceInterval? {
        guard n >= 2, sum.isFinite, sumOfSquares.isFinite else { return nil }
        let count = Double(n), mean = sum / count
        let centred = sumOfSquares - mean * sum
        // Rounding can leave a spread of 0 a hair off it.
        guard centred > 16 * Double.ulpOfOne * sumOfSquares else { return nil }
        let half = tQuantile975(degreesOfFreedom: n - 1) * (centred / (count - 1) / count).squareRoot()
        return ConfidenceInterval(lower: mean - half, upper: mean + half)
    }

    /// The 0.975 quantile of Student's t with ν degrees of freedom: exact for ν = 1, 2 (12.7062,
    /// 4.3027), else the Cornish–Fisher expansion around the normal quantile (Abramowitz & Stegun
    /// 1964, 26.7.5), within 4·10⁻³ at ν = 3, 10⁻⁵ from ν = 10.
    static func tQuantile975(degreesOfFreedom nu: Int) -> Double {
        switch nu {
        case ..<1: return .infinity
        case 1: return 12.706204736174705
        case 2: return 4.302652729749464
        default:
            let z = ProportionStatistics.z95, v = Double(nu)
            let z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z
            let g1 = (z3 + z) / 4
            let g2 = (5 * z5 + 16 * z3 + 3 * z) / 96
            let g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384
            let g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160
            return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v)
        }
    }
}
