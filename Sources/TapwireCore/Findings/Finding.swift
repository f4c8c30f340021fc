// One model of a finding, whatever rule family produced it: what the outbox announces once, what
// /metrics counts, and what every renderer (JSON, CSV, table, HTML, the webhook's message) shows.
// A family keeps its own facts as the evidence; the kind, severity and subject are common.
//
// The families today: category mismatches (Mismatches/) and release
// regressions (Regressions/). A third adds a case to
// `FindingKind` and to `FindingEvidence`, an initialiser here, and its rows to FindingsReport
// (docs/architecture.md, "Findings").

public struct Finding: Sendable, Equatable {
    public var kind: FindingKind
    public var severity: FindingSeverity
    public var subject: FindingSubject
    public var evidence: FindingEvidence
    /// One sentence a person can act on.
    public var message: String
    /// When it began: a mismatch's first event, a regression's `detectedAt`; nil for a manifest change.
    public var since: Timestamp?

    public init(kind: FindingKind, severity: FindingSeverity, subject: FindingSubject, evidence: FindingEvidence, message: String,
                since: Timestamp?) {
        self.kind = kind
        self.severity = severity
        self.subject = subject
        self.evidence = evidence
        self.message = message
        self.since = since
    }

    public init(_ mismatch: MismatchFinding) {
        self.init(kind: .mismatch(mismatch.kind), severity: mismatch.severity,
                  subject: FindingSubject(appVersions: mismatch.appVersions, category: mismatch.category, action: mismatch.action),
                  evidence: .mismatch(mismatch), message: mismatch.message, since: mismatch.firstSeen)
    }

    /// A flagged series. Severity `error`: the minimum drop is one worth waking someone for. The
    /// message names no figures; each renderer shows them beside it, formatted its way.
    public init(_ regression: RegressionFinding, severity: FindingSeverity = .error) {
        let message = "\(regression.outcome.phrase(category: regression.category)) fell in \(regression.candidateVersion) against "
            + "\(regression.baselineVersions.joined(separator: ", ")): its anytime-valid interval lies wholly below the minimum drop. "
            + "Check what \(regression.candidateVersion) changed in the handler."
        self.init(kind: .engagementRegression, severity: severity,
                  subject: FindingSubject(appVersions: [regression.candidateVersion], category: regression.category,
                                          action: regression.outcome.actionIdentifier),
                  evidence: .regression(regression), message: message, since: Timestamp(microseconds: regression.detectedAt))
    }

    /// An outcome the candidate's manifest removed: `info`, since the manifest says it on purpose.
    public init(removed outcome: RegressionOutcome, category: String, candidateVersion: String, registeredBy: [String]) {
        let message = "\(candidateVersion)'s manifest no longer has \(outcome.noun) in \"\(category)\" (registered by "
            + "\(registeredBy.joined(separator: ", "))): a manifest change, not compared as a regression."
        self.init(kind: .manifestChange, severity: .info,
                  subject: FindingSubject(appVersions: [candidateVersion], category: category, action: outcome.actionIdentifier),
                  evidence: .manifestChange(outcome: outcome, registeredBy: registeredBy), message: message, since: nil)
    }

    /// What the outbox announces once, one per app version. A mismatch is announced per category
    /// (two unregistered actions of one category make one message); a release-regression finding
    /// per outcome, since each is its own broken button.
    public func keys(appId: Int64) -> [FindingKey] {
        let detail: String
        switch evidence {
        case .mismatch: detail = ""
        case .regression(let r): detail = r.outcome.stableName
        case .manifestChange(let outcome, _): detail = outcome.stableName
        }
        return subject.appVersions.map { FindingKey(appId: appId, appVersion: $0, kind: kind, category: subject.category, detail: detail) }
    }

    /// Most severe first; within a severity, in the order given (each family orders its own:
    /// mismatches by how many notifications they affected, regressions by category and outcome).
    public static func bySeverity(_ findings: [Finding]) -> [Finding] {
        findings.indices.sorted { i, j in
            findings[i].severity != findings[j].severity ? findings[i].severity > findings[j].severity : i < j
        }.map { findings[$0] }
    }
}
