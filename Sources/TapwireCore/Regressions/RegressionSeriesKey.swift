/// A series' identity within a comparison.
public struct RegressionSeriesKey: Sendable, Hashable {
    public var category: String
    public var outcome: RegressionOutcome

    public init(category: String, outcome: RegressionOutcome) {
        self.category = category
        self.outcome = outcome
    }
}

extension RegressionSeriesKey: Codable {}
