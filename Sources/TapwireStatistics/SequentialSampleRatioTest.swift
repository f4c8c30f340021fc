import Foundation

/// The sample-ratio-mismatch check that may be read every day: Lindon & Malek (2022),
/// "Anytime-valid inference for multinomial count data", NeurIPS 35. Under the intended split
/// π the group counts x (N devices) are multinomial; against a Dirichlet(α) mixture of
/// alternatives the Bayes factor is
///   BF = Γ(Σα)/Γ(Σα + N) · Πᵢ Γ(αᵢ + xᵢ)/Γ(αᵢ) / Πᵢ πᵢ^xᵢ,
/// a non-negative martingale with mean 1 under the null (it depends on the counts only, not on
/// their order), so by Ville's inequality P(∃ look: BF ≥ 1/a) ≤ a. The sequential p-value is
/// p = min over looks of min(1, 1/BF): below a at any look, however often looked at, with chance
/// at most a when the split is right. The prior is α = c·π, concentration c = 100 by default (the
/// default of the first author's published implementation): weight on mismatches of a few points
/// (docs/statistics-outcomes.md).
public struct SequentialSampleRatioTest: Sendable, Equatable {
    /// The intended shares, normalised to sum to 1.
    public var expectedShares: [Double]
    /// The Dirichlet mixture's parameters α.
    public var dirichletParameters: [Double]

    public static let defaultConcentration = 100.0

    /// α = concentration·π. Nil when there are fewer than two groups or a share or the
    /// concentration is not positive and finite.
    public init?(expectedShares: [Double], concentration: Double = defaultConcentration) {
        guard concentration > 0, concentration.isFinite else { return nil }
        let total = expectedShares.reduce(0, +)
        self.init(expectedShares: expectedShares, dirichletParameters: expectedShares.map { concentration * $0 / total })
    }

    /// Any Dirichlet mixture (the authors' tests use α = 1 in every group). Nil when the lists
    /// differ in length, there are fewer than two groups, or any value is not positive and finite.
    public init?(expectedShares: [Double], dirichletParameters: [Double]) {
        guard expectedShares.count >= 2, expectedShares.count == dirichletParameters.count,
              (expectedShares + dirichletParameters).allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
        let total = expectedShares.reduce(0, +)
        self.expectedShares = expectedShares.map { $0 / total }
        self.dirichletParameters = dirichletParameters
    }

    /// log BF for the cumulative counts. Nil when the counts do not match the groups or one is negative.
    public func logBayesFactor(counts: [Int]) -> Double? {
        guard counts.count == expectedShares.count, counts.allSatisfy({ $0 >= 0 }) else { return nil }
        let logGamma = ChiSquareDistribution.logGamma
        let alphaTotal = dirichletParameters.reduce(0, +)
        var value = logGamma(alphaTotal) - logGamma(alphaTotal + Double(counts.reduce(0, +)))
        for (i, x) in counts.enumerated() where x > 0 {
            let a = dirichletParameters[i]
            value += logGamma(a + Double(x)) - logGamma(a) - Double(x) * log(expectedShares[i])
        }
        return value
    }

    /// min(1, 1/BF) at this look alone.
    public func pValue(counts: [Int]) -> Double? {
        logBayesFactor(counts: counts).map { min(1, exp(-$0)) }
    }

    /// The running sequential p-value: min(previous, 1/BF) with `counts` cumulative up to this look
    /// and `previous` the last look's value (1 before the first). Never rises, so once below a
    /// threshold it stays there.
    public func pValue(counts: [Int], previous: Double) -> Double? {
        pValue(counts: counts).map { min(previous, $0) }
    }
}
