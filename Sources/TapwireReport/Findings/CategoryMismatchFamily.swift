import TapwireCore
import TapwireStore

/// Category mismatches: notifications iOS showed without their buttons because the payload named
/// a category the app never registered, and the manifest inconsistencies around them
/// (docs/mismatches.md). The rules are `MismatchDetector`'s; they read the usage rollups over a
/// window (`MismatchStore`), and the monitor runs them every scan.
public struct CategoryMismatchFamily: FindingFamily {
    public var rules: MismatchRules
    /// How far back a monitor scan looks.
    public var lookbackSeconds: Double
    /// How its reads count every acknowledged event (`ReadFold`).
    public var fold: any ReadFold
    /// Manifests decoded before (`MismatchStore.manifestCache`).
    public var manifestCache: ManifestCache?

    public init(rules: MismatchRules = MismatchRules(), lookbackSeconds: Double = 7 * 86_400, fold: any ReadFold = OwnFold(),
                manifestCache: ManifestCache? = nil) {
        self.rules = rules
        self.lookbackSeconds = lookbackSeconds
        self.fold = fold
        self.manifestCache = manifestCache
    }

    private var store: MismatchStore { MismatchStore(rules: rules, fold: fold, manifestCache: manifestCache) }

    public var name: String { "category_mismatch" }
    public var kinds: [FindingKind] { MismatchKind.allCases.map(FindingKind.mismatch) }
    public var cadence: FindingCadence { .continuous }

    /// The window [since, asOf), merged across app versions.
    public func section(appId: Int64, appName: String, query: FindingsQuery, on connection: PostgresConnection) throws(DatabaseError) -> any FindingsSection {
        CategoryMismatchSection(report: try store.report(appId: appId, appName: appName, since: query.since, until: query.asOf,
                                                         on: connection), family: self)
    }

    public func appsToScan(at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [(appId: Int64, name: String)] {
        try store.activeApps(since: instant.adding(seconds: -lookbackSeconds), on: connection)
    }

    /// The lookback before `instant`, up to a second after it, per app version.
    public func scan(appId: Int64, at instant: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [Finding] {
        try store.versionFindings(appId: appId, since: instant.adding(seconds: -lookbackSeconds), until: instant.adding(seconds: 1),
                                  on: connection).map(Finding.init)
    }

    /// As the mismatch report writes it (`MismatchFinding.json`).
    public func json(_ finding: Finding) -> JSONValue {
        (finding.evidence as? MismatchFinding)?.json ?? .null
    }

    public var csvColumns: [String] { ["count"] }

    public func csvValues(_ finding: Finding) -> [String: String] {
        guard let mismatch = finding.evidence as? MismatchFinding else { return [:] }
        return ["count": String(mismatch.count)]
    }

    /// How many notifications the findings affected, on which platforms and since when, and the
    /// lead's suggested identifier.
    public func messageFacts(_ findings: [Finding]) -> [String] {
        guard let lead = findings.first?.evidence as? MismatchFinding else { return [] }
        let affected = findings.reduce(Int64(0)) { $0 + (($1.evidence as? MismatchFinding)?.count ?? 0) }
        var facts = "\(affected) affected"
        if !lead.platforms.isEmpty { facts += " on \(FindingMessages.escape(lead.platforms.joined(separator: ", ")))" }
        if let first = findings.compactMap(\.since).min() { facts += ", first seen \(first.iso8601(fractionDigits: 0))" }
        var lines = [facts]
        if let suggestion = lead.suggestion { lines.append("Suggested: `\(FindingMessages.escape(suggestion))`") }
        return lines
    }

    public var css: String { "" }
}
