import TapwireCore

/// The release-regression family's section of an app's findings: the check, every series with
/// its status.
public struct ReleaseRegressionSection: FindingsSection {
    public var check: RegressionCheck
    /// The family that read it, with its settings.
    public var regressions: ReleaseRegressionFamily

    public init(check: RegressionCheck, family: ReleaseRegressionFamily = ReleaseRegressionFamily()) {
        self.check = check
        regressions = family
    }

    public var family: any FindingFamily { regressions }

    public var findings: [Finding] { check.findings }
    public var title: String { "Release regressions" }
    public var jsonMember: (name: String, value: JSONValue) { ("regressions", check.json) }
    public var table: String { check.table }
    /// Its table starts "Release regressions as of …".
    public var tableHasHeading: Bool { true }
    public var htmlSection: String { check.htmlSection }

    /// Every series keeps its status whatever the severity asked for.
    public func filtered(minimumSeverity severity: FindingSeverity) -> any FindingsSection { self }
}
