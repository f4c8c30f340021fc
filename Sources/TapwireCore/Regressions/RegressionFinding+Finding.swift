// The release-regression family's part of the one model of a finding: its kinds, and how a
// flagged series and an outcome the candidate's manifest removed become `Finding`s.

extension FindingKind {
    /// A category's open, action, text reply or dismissal whose rate fell in the newest app version.
    public static let engagementRegression = FindingKind(rawValue: "engagement_regression")
    /// The newest version's manifest no longer has what earlier versions registered: reported,
    /// not compared (its rate falls to nothing by construction).
    public static let manifestChange = FindingKind(rawValue: "manifest_change")
}

/// Each flagged outcome is its own broken button: announced once per outcome.
extension RegressionFinding: FindingEvidence {
    public var keyDetail: String { outcome.stableName }
}

extension Finding {
    /// A flagged series. Severity `error`: the minimum drop is one worth waking someone for. The
    /// message names no figures; each renderer shows them beside it, formatted its way.
    public init(_ regression: RegressionFinding, severity: FindingSeverity = .error) {
        let message = "\(regression.outcome.phrase(category: regression.category)) fell in \(regression.candidateVersion) against "
            + "\(regression.baselineVersions.joined(separator: ", ")): its anytime-valid interval lies wholly below the minimum drop. "
            + "Check what \(regression.candidateVersion) changed in the handler."
        self.init(kind: .engagementRegression, severity: severity,
                  subject: FindingSubject(appVersions: [regression.candidateVersion], category: regression.category,
                                          action: regression.outcome.actionIdentifier, baselineVersion: regression.baselineVersion),
                  evidence: regression, message: message, since: Timestamp(microseconds: regression.detectedAt))
    }

    /// An outcome the candidate's manifest removed: `info`, since the manifest says it on purpose.
    public init(removed outcome: RegressionOutcome, category: String, candidateVersion: String, registeredBy: [String]) {
        let message = "\(candidateVersion)'s manifest no longer has \(outcome.noun) in \"\(category)\" (registered by "
            + "\(registeredBy.joined(separator: ", "))): a manifest change, not compared as a regression."
        self.init(kind: .manifestChange, severity: .info,
                  subject: FindingSubject(appVersions: [candidateVersion], category: category, action: outcome.actionIdentifier),
                  evidence: ManifestChange(outcome: outcome, registeredBy: registeredBy), message: message, since: nil)
    }
}

extension RegressionCheck {
    /// The check's findings: a flagged series is an `engagement_regression`; an outcome the
    /// candidate's manifest removed is a `manifest_change`.
    public var findings: [Finding] {
        guard let comparison else { return [] }
        return comparison.results.compactMap { result in
            switch result.decision {
            case .flagged(let finding):
                return Finding(finding)
            case .exempt(.removedFromManifest(let versions)):
                return Finding(removed: result.outcome, category: result.category, candidateVersion: comparison.candidateVersion,
                               registeredBy: versions)
            default:
                return nil
            }
        }
    }
}
