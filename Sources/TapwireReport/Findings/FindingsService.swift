import TapwireCore
import TapwireStore

/// Every family's findings of one app as of an instant, each read by its family
/// (`FindingFamily.section`): what `tapwire alerts`, `GET /v1/findings` and the engagement
/// report's findings sections show. It names no family: it iterates `FindingFamilies`.
public struct FindingsService: Sendable {
    public var families: [any FindingFamily]

    public init(families: [any FindingFamily]) { self.families = families }

    public init(_ configuration: FindingsConfiguration = .default) { families = FindingFamilies.all(configuration) }

    /// The families with these mismatch rules and release-regression settings.
    public init(mismatchRules: MismatchRules = MismatchRules(), regression: RegressionConfiguration = .default) {
        self.init(FindingsConfiguration(mismatchRules: mismatchRules, regression: regression))
    }

    /// Every section as the query asks (severity is the caller's filter: `filtered`).
    public func report(appId: Int64, appName: String, query: FindingsQuery, on connection: PostgresConnection) throws(DatabaseError) -> FindingsReport {
        var sections: [any FindingsSection] = []
        for family in families {
            sections.append(try family.section(appId: appId, appName: appName, query: query, on: connection))
        }
        return FindingsReport(app: appName, asOf: query.asOf, sections: sections)
    }

    /// A window family over [since, asOf), a look family as of `asOf`: the look the collectors
    /// stored for that hour when `look` is `.current` and one applies, else computed now.
    public func report(appId: Int64, appName: String, since: Timestamp, asOf: Timestamp, look: FindingsQuery.Look,
                       on connection: PostgresConnection) throws(DatabaseError) -> FindingsReport {
        try report(appId: appId, appName: appName, query: FindingsQuery(asOf: asOf, since: since, look: look), on: connection)
    }
}
