public struct RegressionSeriesResult: Sendable, Equatable {
    public var category: String
    public var outcome: RegressionOutcome
    public var decision: RegressionDecision
    /// Baseline versions pooled for this series, newest first (empty when exempt).
    public var baselineVersions: [String]
}

extension RegressionSeriesResult: Codable {}
