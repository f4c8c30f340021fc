import Foundation
import TapwireStatistics

/// The 95% interval of value per delivered notification, from the four sums the rollups keep
/// (n, Σx, Σx², Σx³: notifications without a conversion count as 0). Revenue per notification is
/// zero-heavy and right-skewed, so the interval corrects for skewness: `SkewAdjustedMean` (Hall's
/// 1992 transformation of the studentised mean, as Zhou & Dinh 2005 recommend over Johnson's 1978
/// modified t; docs/statistics-outcomes.md, "Value per delivered"). The one place the report picks it.
enum ConversionValueInterval {
    /// How the JSON names the interval in use.
    static let method = "skew-adjusted (Hall 1992)"

    static func interval(count: Int, sum: Double, sumOfSquares: Double, sumOfCubes: Double) -> ConfidenceInterval? {
        SkewAdjustedMean.interval(count: count, sum: sum, sumOfSquares: sumOfSquares, sumOfCubes: sumOfCubes)
    }
}
