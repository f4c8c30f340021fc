import Foundation

/// A two-sided confidence interval. Bounds are proportions (0…1) or differences (−1…1).
public struct ConfidenceInterval: Sendable, Equatable {
    public var lower: Double
    public var upper: Double
    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }

    public func contains(_ value: Double) -> Bool { lower <= value && value <= upper }
}

/// Stored inside a release-regression look (RegressionCheck is Codable).
extension ConfidenceInterval: Codable {}
