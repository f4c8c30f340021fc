/// Why a series has no verdict yet.
public enum RegressionShortfall: Sendable, Equatable, CustomStringConvertible {
    /// The candidate delivered none of the category.
    case noCandidateDeliveries
    /// No baseline version that has this outcome delivered the category in an hour the candidate did.
    case noSharedHours
    /// Fewer deliveries than the minimum on a side, in the strata where both delivered.
    case belowMinimumDeliveries(candidate: Int, baseline: Int, required: Int)
    /// Too few outcomes expected on a side for the normal approximation (Cochran's rule).
    case expectedCountBelowMinimum(expected: Double, required: Double)

    public var code: String {
        switch self {
        case .noCandidateDeliveries: "no_candidate_deliveries"
        case .noSharedHours: "no_shared_hours"
        case .belowMinimumDeliveries: "below_minimum_deliveries"
        case .expectedCountBelowMinimum: "expected_count_below_minimum"
        }
    }

    public var description: String {
        switch self {
        case .noCandidateDeliveries:
            "the candidate version has delivered none of this category yet"
        case .noSharedHours:
            "no baseline version with this outcome delivered the category in an hour the candidate did"
        case let .belowMinimumDeliveries(candidate, baseline, required):
            "fewer than \(required) delivered on a side in the hours both delivered (candidate \(candidate), baseline \(baseline))"
        case let .expectedCountBelowMinimum(expected, required):
            "fewer than \(Self.number(required)) responses expected on a side (\(Self.number(expected)))"
        }
    }

    private static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String((x * 10).rounded() / 10)
    }
}

extension RegressionShortfall: Codable {}
