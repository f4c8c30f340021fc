import Foundation

/// The comparison of two engagement rates (rich vs text-only) with its honest statistics.
public struct ProportionComparison: Sendable, Equatable {
    public var x1: Int, n1: Int, x2: Int, n2: Int
    /// p1 − p2, nil when insufficient.
    public var difference: Double?
    public var differenceCI: ConfidenceInterval?
    public var relativeLift: Double?
    public var pValue: Double?
    /// Nil when sufficient; otherwise the reason the numbers are withheld.
    public var insufficientReason: String?

    public var sufficient: Bool { insufficientReason == nil }

    public init(x1: Int, n1: Int, x2: Int, n2: Int, minimum: MinimumSample = .default) {
        self.x1 = x1
        self.n1 = n1
        self.x2 = x2
        self.n2 = n2
        if let reason = minimum.insufficiency(x1: x1, n1: n1, x2: x2, n2: n2) {
            insufficientReason = reason
            return
        }
        difference = Double(x1) / Double(n1) - Double(x2) / Double(n2)
        differenceCI = ProportionStatistics.newcombeDifference(x1: x1, n1: n1, x2: x2, n2: n2)
        relativeLift = ProportionStatistics.relativeLift(x1: x1, n1: n1, x2: x2, n2: n2)
        pValue = ProportionStatistics.twoProportionPValue(x1: x1, n1: n1, x2: x2, n2: n2)
    }
}
