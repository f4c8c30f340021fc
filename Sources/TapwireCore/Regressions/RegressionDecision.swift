/// The verdict on one category × outcome.
public enum RegressionDecision: Sendable, Equatable {
    case flagged(RegressionFinding)
    /// Enough data and no crossing: the latest look's evidence.
    case fine(RegressionEvidence)
    /// Not yet testable. The deliveries are those of the hours both sides delivered (of every
    /// hour, when no hour is shared).
    case notEnoughData(RegressionShortfall, candidateDelivered: Int, baselineDelivered: Int)
    case exempt(RegressionExemption)
}

extension RegressionDecision: Codable {}
