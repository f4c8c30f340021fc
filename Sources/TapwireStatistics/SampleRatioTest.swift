import Foundation

/// The fixed-horizon sample-ratio-mismatch check: Pearson's (1900) χ² goodness-of-fit of the
/// devices counted in each group against the shares the split intended,
///   X² = Σᵢ (nᵢ − N·πᵢ)²/(N·πᵢ) on k − 1 degrees of freedom,
/// the test Statsig, Eppo, GrowthBook and Braze run (alerting at p < 0.001). Valid for one look
/// decided in advance; a check read every day needs `SequentialSampleRatioTest`.
public enum SampleRatioTest {
    public struct ChiSquare: Sendable, Equatable {
        public var statistic: Double
        public var degreesOfFreedom: Int
        public var pValue: Double
    }

    /// X², its degrees of freedom and P(χ²ₖ₋₁ ≥ X²). `expectedShares` are normalised by their sum
    /// (so [9, 1] is a 90/10 split). Nil when there are fewer than two groups, the lists differ
    /// in length, a count is negative, no device was counted, or a share is not positive and finite.
    public static func chiSquare(counts: [Int], expectedShares: [Double]) -> ChiSquare? {
        guard counts.count >= 2, counts.count == expectedShares.count, counts.allSatisfy({ $0 >= 0 }),
              expectedShares.allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
        let total = counts.reduce(0, +)
        guard total > 0 else { return nil }
        let shareSum = expectedShares.reduce(0, +)
        var statistic = 0.0
        for (count, share) in zip(counts, expectedShares) {
            let expected = Double(total) * share / shareSum
            let deviation = Double(count) - expected
            statistic += deviation * deviation / expected
        }
        let k = counts.count - 1
        guard let p = ChiSquareDistribution.survival(statistic, degreesOfFreedom: k) else { return nil }
        return ChiSquare(statistic: statistic, degreesOfFreedom: k, pValue: p)
    }
}
