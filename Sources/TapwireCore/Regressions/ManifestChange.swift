/// The evidence of a `manifest_change` finding: an outcome the candidate's manifest removed (it
/// is reported, not compared: its rate falls to nothing by construction), and the versions that
/// registered it.
public struct ManifestChange: Sendable, Equatable, FindingEvidence {
    public var outcome: RegressionOutcome
    public var registeredBy: [String]

    public init(outcome: RegressionOutcome, registeredBy: [String]) {
        self.outcome = outcome
        self.registeredBy = registeredBy
    }

    /// Announced per outcome, like a regression.
    public var keyDetail: String { outcome.stableName }
}
