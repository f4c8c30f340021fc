import Foundation

/// How many observations a mean of skewed data needs before its 95% interval can be shown:
/// Cochran's rule (Cochran 1977, "Sampling Techniques", 3rd ed., §2.15), n > 25·G₁² with G₁ the
/// population's skewness, as Sugden, Smith & Jones (2000), "Cochran's rule for simple random
/// sampling", JRSS B 62(4):787–793, refined it from the Edgeworth expansion of the mean:
/// n > 28 + 25·G₁², so that a nominal 95% interval covers at least 94%. G₁ is estimated from the
/// four sums the rollups keep (`SkewAdjustedMean.Moments.skewness`). docs/statistics-outcomes.md,
/// "When the interval is shown".
public enum SkewedSampleSize {
    /// The least n the rule accepts for skewness G₁: the first integer above 28 + 25·G₁² (nil if G₁
    /// is not finite or the count would not fit an Int).
    public static func minimumCount(skewness g1: Double) -> Int? {
        let bound = 28 + 25 * g1 * g1
        guard bound.isFinite, bound < 9e15 else { return nil }
        return Int(bound.rounded(.down)) + 1
    }

    /// The rule for a difference of two means from independent groups (treated against held out):
    /// the smaller group against the skewness of both groups' values together. Under no difference
    /// the groups are one population, whose skewness both samples estimate; the pooled sample is
    /// the larger and sees more of a long tail. A rule on each group's own skewness would show
    /// exactly the small samples that missed their rare large values (they look least skewed),
    /// and those are the ones whose interval misses: in our simulation such a rule covered 0.86
    /// where it showed the interval, the pooled one 0.94 to 0.95 (docs/statistics-outcomes.md).
    public struct Verdict: Sendable, Equatable {
        /// G₁ of both groups' values together (a difference), or the larger of the sample's and its
        /// pool's (a mean).
        public var skewness: Double
        /// The least size of the smaller group the rule accepts (nil: none would do).
        public var minimumCount: Int?
        /// The count the rule judges: the smaller group's (a difference), or the sample's (a mean).
        public var smallerCount: Int
        public var sufficient: Bool { minimumCount.map { smallerCount >= $0 } ?? false }
    }

    public static func difference(firstCount: Int, secondCount: Int, pooled: SkewAdjustedMean.Moments) -> Verdict {
        let g1 = pooled.skewness
        return Verdict(skewness: g1, minimumCount: minimumCount(skewness: g1), smallerCount: min(firstCount, secondCount))
    }

    /// The rule for one mean (a category's value per delivered notification): the sample's count
    /// against the larger skewness of its own values and of `pool`'s, a larger sample of the same
    /// values that contains it (the conversion over every category of the report). The rule needs
    /// the population's G₁, and a small sample of a long tail rarely holds the tail: alone it looks
    /// mild, is judged sufficient, and its interval misses (covering 0 to 0.72 in our simulations);
    /// the pool sees the tail the sample missed, as the holdouts' pooled arms do. The larger of the
    /// two, because a category may be more skewed than the mixture of all of them. `pool` equal to
    /// the sample is the rule on the sample's own G₁ (Cochran's and Sugden, Smith & Jones's
    /// statement). docs/statistics-outcomes.md, "When the interval is shown".
    public static func mean(_ sample: SkewAdjustedMean.Moments, pool: SkewAdjustedMean.Moments) -> Verdict {
        let g1 = abs(pool.skewness) > abs(sample.skewness) ? pool.skewness : sample.skewness
        return Verdict(skewness: g1, minimumCount: minimumCount(skewness: g1), smallerCount: sample.count)
    }
}
