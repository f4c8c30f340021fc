/// One UTC day of a series, over the cells (hour × platform × segment) both sides delivered in:
/// what the report charts for a flagged outcome.
public struct RegressionDay: Sendable, Equatable {
    /// The UTC midnight, µs since 1970.
    public var day: Int64
    public var candidate: RegressionSide
    public var baseline: RegressionSide

    public init(day: Int64, candidate: RegressionSide, baseline: RegressionSide) {
        self.day = day
        self.candidate = candidate
        self.baseline = baseline
    }
}

extension RegressionDay: Codable {}
