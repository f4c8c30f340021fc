// The category-mismatch family's part of the one model of a finding: its kinds and how a
// mismatch becomes a `Finding`, with the mismatch itself as the evidence.

extension FindingKind {
    /// A mismatch's kind, named as `MismatchKind` names it (`case_mismatch`, `unknown_category`, …).
    public static func mismatch(_ kind: MismatchKind) -> FindingKind { FindingKind(rawValue: kind.rawValue) }
}

/// A mismatch is announced once per category and version: its kind and category are its key.
extension MismatchFinding: FindingEvidence {
    public var keyDetail: String { "" }
}

extension Finding {
    public init(_ mismatch: MismatchFinding) {
        self.init(kind: .mismatch(mismatch.kind), severity: mismatch.severity,
                  subject: FindingSubject(appVersions: mismatch.appVersions, category: mismatch.category, action: mismatch.action),
                  evidence: mismatch, message: mismatch.message, since: mismatch.firstSeen)
    }
}
