/// The rule's answer: a comparison, or why there is none.
public enum RegressionEvaluation: Sendable, Equatable {
    case comparison(RegressionComparison)
    /// Fewer than two app versions delivered before the instant (or the configured candidate never did).
    case noComparison(String)
}

extension RegressionEvaluation: Codable {}
