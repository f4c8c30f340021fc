// One model of a finding, whatever rule family produced it: what the outbox announces once, what
// /metrics counts, and what every renderer (JSON, CSV, table, HTML, the webhook's message) shows.
// A family keeps its own facts as the evidence; the kind, severity and subject are common.
//
// The families: category mismatches (Mismatches/) and release regressions (Regressions/), each
// making `Finding`s with initialisers of its own there. TapwireReport's `FindingFamilies` lists
// them (docs/architecture.md, "Findings").

public struct Finding: Sendable {
    public var kind: FindingKind
    public var severity: FindingSeverity
    public var subject: FindingSubject
    public var evidence: any FindingEvidence
    /// One sentence a person can act on.
    public var message: String
    /// When it began: a mismatch's first event, a regression's `detectedAt`; nil for a manifest change.
    public var since: Timestamp?

    public init(kind: FindingKind, severity: FindingSeverity, subject: FindingSubject, evidence: any FindingEvidence, message: String,
                since: Timestamp?) {
        self.kind = kind
        self.severity = severity
        self.subject = subject
        self.evidence = evidence
        self.message = message
        self.since = since
    }

    /// What the outbox announces once, one per app version. A mismatch is announced per category
    /// (two unregistered actions of one category make one message); a release-regression finding
    /// per outcome, since each is its own broken button (the evidence's `keyDetail`).
    public func keys(appId: Int64) -> [FindingKey] {
        subject.appVersions.map {
            FindingKey(appId: appId, appVersion: $0, kind: kind, category: subject.category, detail: evidence.keyDetail)
        }
    }

    /// Most severe first; within a severity, in the order given (each family orders its own:
    /// mismatches by how many notifications they affected, regressions by category and outcome).
    public static func bySeverity(_ findings: [Finding]) -> [Finding] {
        findings.indices.sorted { i, j in
            findings[i].severity != findings[j].severity ? findings[i].severity > findings[j].severity : i < j
        }.map { findings[$0] }
    }
}

extension Finding: Equatable {
    public static func == (a: Finding, b: Finding) -> Bool {
        a.kind == b.kind && a.severity == b.severity && a.subject == b.subject && a.evidence.isEqual(to: b.evidence)
            && a.message == b.message && a.since == b.since
    }
}
