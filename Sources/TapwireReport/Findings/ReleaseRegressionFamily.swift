import TapwireCore
import TapwireStore

/// Release regressions: a category's button (or open, reply, dismiss) whose use collapsed in the
/// newest app version, by the anytime-valid rule of `ReleaseRegressionRule` over the release
/// rollups (docs/regressions.md). The monitor takes each hour's look once for every collector
/// and reader (`RegressionLookStore`).
public struct ReleaseRegressionFamily: FindingFamily {
    public var configuration: RegressionConfiguration

    /// How its reads count every acknowledged event (`ReadFold`).
    public var fold: any ReadFold

    public init(configuration: RegressionConfiguration = .default, fold: any ReadFold = OwnFold()) {
        self.configuration = configuration
        self.fold = fold
    }

    public var name: String { "release_regression" }
    public var kinds: [FindingKind] { [.engagementRegression, .manifestChange] }
    public var cadence: FindingCadence { .hourly }

    public func section(appId: Int64, appName: String, query: FindingsQuery, on connection: PostgresConnection) throws(DatabaseError) -> any FindingsSection {
        ReleaseRegressionSection(check: try check(appId: appId, query: query, on: connection), family: self)
    }

    /// The check as of `query.asOf`: the look the collectors stored for that hour when the query
    /// takes the current look and one applies, else computed now (`GET /v1/reports/regressions`
    /// shows it alone).
    public func check(appId: Int64, query: FindingsQuery, on connection: PostgresConnection) throws(DatabaseError) -> RegressionCheck {
        try RegressionLookStore(configuration: configuration, fold: fold)
            .look(appId: appId, asOf: query.asOf, request: query.look == .current ? .current : .computed, on: connection)
    }

    /// Apps with usage in the horizon before the look.
    public func appsToScan(at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [(appId: Int64, name: String)] {
        try MismatchStore(fold: fold).activeApps(since: instant.adding(seconds: -Double(configuration.horizonDays) * 86_400), on: connection)
    }

    /// The look of the hour that ends at `instant`: the one another collector stored, else taken
    /// and stored here, so readers of the current look need not compute it.
    public func scan(appId: Int64, at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [Finding] {
        try RegressionLookStore(configuration: configuration, fold: fold).take(appId: appId, asOf: instant, on: connection).findings
    }

    /// A regression: kind, severity, category, action, outcome, appVersion, baselineVersion(s),
    /// both sides' rates and deliveries, difference with its anytime-valid bounds,
    /// pooledDifference and detectedAt (at the look that detected it; `latest` holds the newest
    /// look), then message. A manifest change: the outcome removed and the versions that had it.
    public func json(_ finding: Finding) -> JSONValue {
        if let r = finding.evidence as? RegressionFinding {
            var members: [(String, JSONValue)] = [
                ("kind", .string(finding.kind.rawValue)), ("severity", .string(finding.severity.rawValue)), ("category", .string(r.category)),
                ("action", .optional(r.outcome.actionIdentifier)), ("outcome", .string(r.outcome.kind)),
                ("appVersion", .string(r.candidateVersion)), ("baselineVersion", .string(r.baselineVersion)),
                ("baselineVersions", .array(r.baselineVersions.map { .string($0) })),
            ]
            members += r.atDetection.jsonMembers
            members.append(("detectedAt", .string(Timestamp(microseconds: r.detectedAt).description)))
            members.append(("latest", .object([("lookAt", .string(Timestamp(microseconds: r.latest.lookAt).description))]
                                              + r.latest.jsonMembers)))
            members.append(("message", .string(finding.message)))
            return .object(members)
        }
        guard let change = finding.evidence as? ManifestChange else { return .null }
        return .object([
            ("kind", .string(finding.kind.rawValue)), ("severity", .string(finding.severity.rawValue)),
            ("category", .string(finding.subject.category)), ("action", .optional(change.outcome.actionIdentifier)),
            ("outcome", .string(change.outcome.kind)), ("appVersion", .string(finding.subject.appVersions.first ?? "")),
            ("registeredBy", .array(change.registeredBy.map { .string($0) })), ("message", .string(finding.message)),
        ])
    }

    public var csvColumns: [String] {
        ["candidateRate", "baselineRate", "difference", "differenceLower", "differenceUpper", "pooledDifference"]
    }

    /// The figures at detection, fractions rounded to 6 digits.
    public func csvValues(_ finding: Finding) -> [String: String] {
        guard let r = finding.evidence as? RegressionFinding else { return [:] }
        func n(_ x: Double) -> String { String(Rounding.round(x, digits: 6)) }
        let e = r.atDetection
        return ["candidateRate": n(e.candidate.rate), "baselineRate": n(e.baseline.rate), "difference": n(e.difference),
                "differenceLower": n(e.anytimeValid.lower), "differenceUpper": n(e.anytimeValid.upper),
                "pooledDifference": n(e.pooledDifference)]
    }

    /// Both sides' rates, the stratified difference and its anytime-valid interval, and when it
    /// was detected; a manifest change needs no figures.
    public func messageFacts(_ findings: [Finding]) -> [String] {
        guard let r = findings.first?.evidence as? RegressionFinding else { return [] }
        let e = r.atDetection
        let escape = FindingMessages.escape
        return ["\(Fmt.percent(e.candidate.rate)) of \(Fmt.count(e.candidate.delivered)) on \(escape(r.candidateVersion)) against "
                + "\(Fmt.percent(e.baseline.rate)) of \(Fmt.count(e.baseline.delivered)) on \(escape(r.baselineVersions.joined(separator: ", "))); "
                + "stratified difference \(Fmt.points(e.difference * 100)), anytime-valid \(Fmt.interval(e.anytimeValid, signed: true)) pp; "
                + "detected \(Timestamp(microseconds: r.detectedAt).iso8601(fractionDigits: 0))"]
    }

    /// The charts of flagged series.
    public var css: String { RegressionChart.css }
}
