/// Every family's findings of one app as of an instant: the model `tapwire alerts`,
/// `GET /v1/findings` and the engagement report's findings sections render
/// (TapwireReport/FindingRenderers.swift). Each family's own report rides along, for the details
/// only it has (a mismatch window, every regression series with its status).
public struct FindingsReport: Sendable, Equatable {
    public var app: String
    /// The instant evaluated: mismatches over the window ending here, regressions as of here.
    public var asOf: Timestamp
    public var mismatches: MismatchReport
    public var regressions: RegressionCheck
    /// Both families' findings, most severe first.
    public private(set) var findings: [Finding]

    public init(app: String, asOf: Timestamp, mismatches: MismatchReport, regressions: RegressionCheck) {
        self.app = app
        self.asOf = asOf
        self.mismatches = mismatches
        self.regressions = regressions
        findings = Finding.bySeverity(mismatches.findings.map(Finding.init) + regressions.findings)
    }

    /// Only the findings at or above `severity` (the family reports keep every series' status).
    public func filtered(minimumSeverity severity: FindingSeverity) -> FindingsReport {
        var copy = self
        copy.mismatches = mismatches.filtered(minimumSeverity: severity)
        copy.findings = findings.filter { $0.severity >= severity }
        return copy
    }

    /// How many findings of each severity, most severe first (for a heading).
    public var countsBySeverity: [(FindingSeverity, Int)] {
        FindingSeverity.allCases.reversed().map { s in (s, findings.filter { $0.severity == s }.count) }
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
