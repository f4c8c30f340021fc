import TapwireCore
import TapwireReport
import TapwireStore

// A third family of findings, written as the holdouts issue's `sample_ratio_mismatch` would be:
// its own kind, evidence, section, CSV columns, message facts and style. The tests hand it to
// the outputs, the monitor and the outbox in place of a registered family, to show that they
// iterate families and name none.

/// The observed share of a holdout against the one configured.
public struct SampleRatio: FindingEvidence, Equatable {
    public var expected: Double
    public var observed: Double
    public var keyDetail: String { "holdout" }
}

public struct SampleRatioFamily: FindingFamily {
    public static let kind = FindingKind(rawValue: "sample_ratio_mismatch")
    /// What a monitor scan finds: these apps, each with these findings.
    public var apps: [(appId: Int64, name: String)]
    public var findings: [Finding]

    public init(apps: [(appId: Int64, name: String)] = [], findings: [Finding] = []) {
        self.apps = apps
        self.findings = findings
    }

    /// A warning on `version`: the holdout got 4% of the deliveries instead of 10%.
    public static func finding(version: String, since: Timestamp) -> Finding {
        Finding(kind: kind, severity: .warning, subject: FindingSubject(appVersions: [version], category: "promo"),
                evidence: SampleRatio(expected: 0.1, observed: 0.04), message: "The holdout got 4% instead of 10%.", since: since)
    }

    public var name: String { "sample_ratio_mismatch" }
    public var kinds: [FindingKind] { [Self.kind] }
    public var cadence: FindingCadence { .continuous }
    public func section(appId: Int64, appName: String, query: FindingsQuery, on connection: PostgresConnection) throws(DatabaseError) -> any FindingsSection {
        SampleRatioSection(findings: findings)
    }
    public func appsToScan(at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [(appId: Int64, name: String)] { apps }
    public func scan(appId: Int64, at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [Finding] { findings }
    public func json(_ finding: Finding) -> JSONValue {
        let ratio = finding.evidence as? SampleRatio
        return .object([("kind", .string(finding.kind.rawValue)), ("expectedShare", .optional(ratio.map { String($0.expected) })),
                        ("observedShare", .optional(ratio.map { String($0.observed) }))])
    }
    public var csvColumns: [String] { ["expectedShare", "observedShare"] }
    public func csvValues(_ finding: Finding) -> [String: String] {
        guard let ratio = finding.evidence as? SampleRatio else { return [:] }
        return ["expectedShare": String(ratio.expected), "observedShare": String(ratio.observed)]
    }
    public func messageFacts(_ findings: [Finding]) -> [String] { ["holdout share off its target"] }
    public var css: String { ".tapwire-srm{color:red}" }
}

public struct SampleRatioSection: FindingsSection {
    public var findings: [Finding]
    public init(findings: [Finding]) { self.findings = findings }
    public var family: any FindingFamily { SampleRatioFamily() }
    public var title: String { "Sample ratio mismatches" }
    public var jsonMember: (name: String, value: JSONValue) { ("sampleRatios", .object([("checked", .bool(true))])) }
    public var table: String { "SAMPLE RATIO TABLE\n" }
    public var tableHasHeading: Bool { false }
    public var htmlSection: String { "<section class=\"tapwire-srm\"></section>\n" }
    public func filtered(minimumSeverity severity: FindingSeverity) -> any FindingsSection {
        SampleRatioSection(findings: findings.filter { $0.severity >= severity })
    }
}
