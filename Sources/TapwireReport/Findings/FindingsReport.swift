import TapwireCore

/// Every family's findings of one app as of an instant: the model `tapwire alerts`,
/// `GET /v1/findings` and the engagement report's findings sections render
/// (FindingsReport+Rendering.swift). Each family's section rides along, in `FindingFamilies`
/// order, for the details only it has.
public struct FindingsReport: Sendable {
    public var app: String
    /// The instant evaluated: a window family's window ends here, a look family looks as of here.
    public var asOf: Timestamp
    public private(set) var sections: [any FindingsSection]
    /// Every family's findings, most severe first.
    public private(set) var findings: [Finding]

    public init(app: String, asOf: Timestamp, sections: [any FindingsSection]) {
        self.app = app
        self.asOf = asOf
        self.sections = sections
        findings = Finding.bySeverity(sections.flatMap(\.findings))
    }

    /// Only the findings at or above `severity` (each section keeps what else it shows, such as
    /// every regression series' status).
    public func filtered(minimumSeverity severity: FindingSeverity) -> FindingsReport {
        var copy = self
        copy.sections = sections.map { $0.filtered(minimumSeverity: severity) }
        copy.findings = findings.filter { $0.severity >= severity }
        return copy
    }

    /// The section of one family, by its type (`ReleaseRegressionSection.self`).
    public func section<Section: FindingsSection>(_ type: Section.Type) -> Section? {
        sections.lazy.compactMap { $0 as? Section }.first
    }

    /// How many findings of each severity, most severe first (for a heading).
    public var countsBySeverity: [(FindingSeverity, Int)] {
        FindingSeverity.allCases.reversed().map { s in (s, findings.filter { $0.severity == s }.count) }
    }
}
