import Foundation

/// When a rich-vs-text comparison is reported as a number and when it is "insufficient data".
/// The defaults are the usual conditions for the normal approximation behind the z-test
/// (Cochran's rule: every expected cell count at least 5), plus a floor per side so a handful
/// of notifications never produces a headline lift.
public struct MinimumSample: Sendable, Equatable {
    /// Delivered notifications required on each side. Default 100.
    public var perSide: Int
    /// Expected engaged and not-engaged count required on each side under the pooled rate. Default 5.
    public var expectedCount: Double

    public static let `default` = MinimumSample(perSide: 100, expectedCount: 5)

    public init(perSide: Int = 100, expectedCount: Double = 5) {
        self.perSide = perSide
        self.expectedCount = expectedCount
    }

    /// Nil when the comparison may be reported, otherwise why not (for the report's reason field).
    public func insufficiency(x1: Int, n1: Int, x2: Int, n2: Int) -> String? {
        if n1 <= 0 || n2 <= 0 {
            return "no delivered notifications on a side (rich \(n1), text-only \(n2))"
        }
        if n1 < perSide || n2 < perSide {
            return "fewer than \(perSide) delivered on a side (rich \(n1), text-only \(n2))"
        }
        let pooled = Double(x1 + x2) / Double(n1 + n2)
        let smallest = min(Double(n1), Double(n2)) * min(pooled, 1 - pooled)
        if smallest < expectedCount {
            return "an expected engaged or not-engaged count below \(formatCount(expectedCount)) on a side"
        }
        return nil
    }

    private func formatCount(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
