import TapwireCore

/// The category-mismatch family's section of an app's findings: its report over the window.
public struct CategoryMismatchSection: FindingsSection {
    public var report: MismatchReport
    /// The family that read it, with its settings.
    public var mismatches: CategoryMismatchFamily

    public init(report: MismatchReport, family: CategoryMismatchFamily = CategoryMismatchFamily()) {
        self.report = report
        mismatches = family
    }

    public var family: any FindingFamily { mismatches }

    public var findings: [Finding] { report.findings.map(Finding.init) }
    public var title: String { "Category mismatches" }
    /// The window it read.
    public var jsonMember: (name: String, value: JSONValue) {
        ("mismatches", .object([("since", .string(report.since.description)), ("until", .string(report.until.description))]))
    }
    public var table: String { report.table }
    public var tableHasHeading: Bool { false }
    public var htmlSection: String { report.htmlSection }

    public func filtered(minimumSeverity severity: FindingSeverity) -> any FindingsSection {
        CategoryMismatchSection(report: report.filtered(minimumSeverity: severity), family: mismatches)
    }
}
