/// The family's own facts behind a finding.
public enum FindingEvidence: Sendable, Equatable {
    case mismatch(MismatchFinding)
    case regression(RegressionFinding)
    /// The outcome the candidate's manifest removed, and the versions that registered it.
    case manifestChange(outcome: RegressionOutcome, registeredBy: [String])
}
