/// A flagged series: the anytime-valid interval fell wholly below the minimum drop at some look.
public struct RegressionFinding: Sendable, Equatable {
    public var category: String
    public var outcome: RegressionOutcome
    public var candidateVersion: String
    /// The newest version in this series' baseline.
    public var baselineVersion: String
    /// Every version pooled into this series' baseline, newest first.
    public var baselineVersions: [String]
    /// The first look whose interval fell below the minimum drop, µs.
    public var detectedAt: Int64
    /// That look's evidence.
    public var atDetection: RegressionEvidence
    /// The latest look's evidence (what a person sees now).
    public var latest: RegressionEvidence
}

extension RegressionFinding: Codable {}
