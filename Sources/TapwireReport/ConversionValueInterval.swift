import Foundation
import TapwireStatistics

/// The 95% interval of value per delivered notification, from the four sums the rollups keep
/// (n, Σx, Σx², Σx³: notifications without a conversion count as 0). Revenue per notification is
/// zero-heavy and right-skewed, so the interval corrects for skewness: `SkewAdjustedMean` (Hall's
/// 1992 transformation of the studentised mean, as Zhou & Dinh 2005 recommend over Johnson's 1978
/// modified t), and is shown only where the count suffices for the values' skewness
/// (`SkewedSampleSize.mean`), G₁ read from the conversion over the whole report as well as from
/// the cell (docs/statistics-outcomes.md, "When the interval is shown"). The one place the report
/// picks it.
enum ConversionValueInterval {
    /// How the JSON names the interval in use.
    static let method = "skew-adjusted (Hall 1992)"

    /// The interval, or why it is withheld, with the rule's numbers.
    struct Estimate: Sendable, Equatable {
        var ci95: ConfidenceInterval?
        /// Why `ci95` is nil though the values vary (nil when shown, or when there is no spread).
        var withheld: String?
        /// The G₁ the rule read (the cell's or the pool's, the larger) and the delivered it needs
        /// (nil: no spread, or no count would do).
        var skewness: Double?
        var deliveredNeeded: Int?
    }

    /// `pool`: the same name and currency over every delivered notification of the report (every
    /// category and group), which contains the cell; nil reads the cell's own.
    static func estimate(_ cell: SkewAdjustedMean.Moments?, pool: SkewAdjustedMean.Moments?) -> Estimate {
        guard let m = cell, let ci = SkewAdjustedMean.interval(m) else { return Estimate() }
        let pool = pool ?? m
        let rule = SkewedSampleSize.mean(m, pool: pool)
        guard !rule.sufficient else { return Estimate(ci95: ci, skewness: rule.skewness, deliveredNeeded: rule.minimumCount) }
        return Estimate(withheld: insufficiency(rule, poolCount: pool.count), skewness: rule.skewness, deliveredNeeded: rule.minimumCount)
    }

    /// Why the interval is withheld, in the words of the conversions table.
    static func insufficiency(_ rule: SkewedSampleSize.Verdict, poolCount: Int) -> String {
        let needed = rule.minimumCount.map { "at least \($0) delivered" } ?? "more delivered than any app has"
        return "\(rule.smallerCount) delivered: values as skewed as these (G1 \(String(format: "%.1f", rule.skewness)), "
            + "the larger of this cell's and of the \(poolCount) delivered of the whole report) need \(needed) "
            + "for the 95% interval to cover (n > 28 + 25·G1²: Cochran's rule, as Sugden, Smith & Jones 2000 refine it)"
    }
}
