/// The mismatch findings of one app over one window: the model every surface renders (the HTTP
/// endpoint, `tapwire alerts`, and the mismatch section of the full report), with the renderers
/// of TapwireReport/Findings/MismatchReport+Rendering.swift.
public struct MismatchReport: Sendable, Equatable {
    public var app: String
    public var since: Timestamp
    public var until: Timestamp
    public var findings: [MismatchFinding]

    public init(app: String, since: Timestamp, until: Timestamp, findings: [MismatchFinding]) {
        self.app = app
        self.since = since
        self.until = until
        self.findings = findings
    }

    /// Only the findings at or above `severity`.
    public func filtered(minimumSeverity severity: FindingSeverity) -> MismatchReport {
        var copy = self
        copy.findings = findings.filter { $0.severity >= severity }
        return copy
    }

    /// How many findings of each severity, most severe first (for a section heading).
    public var countsBySeverity: [(FindingSeverity, Int)] {
        FindingSeverity.allCases.reversed().map { s in (s, findings.filter { $0.severity == s }.count) }
    }
}
