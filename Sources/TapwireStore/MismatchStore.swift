import TapwireCore

/// Mismatch detection over the usage rollups (migration 0020): it reads rollup rows (whole days
/// from the daily table, edge hours from the hourly one) and the current manifests, never raw
/// events, so its cost grows with days x event shapes. The findings go out through the one
/// outbox of every family (FindingOutbox.swift).
public struct MismatchStore: Sendable {
    public var rules: MismatchRules
    /// How its reads count every acknowledged event (`ReadFold`).
    public var fold: any ReadFold
    /// Manifests decoded before, by content hash: a collector's monitor scans every 30 s, and
    /// decoding a real app's forty manifests again each time was most of a scan
    /// (docs/benchmarks.md, "The collector's instructions per event (branch ingest8)").
    public var manifestCache: ManifestCache?

    public init(rules: MismatchRules = MismatchRules(), fold: any ReadFold = OwnFold(), manifestCache: ManifestCache? = nil) {
        self.rules = rules
        self.fold = fold
        self.manifestCache = manifestCache
    }

    /// The rollups of one app summed over [since, until); `since` is rounded down to its hour.
    public func usage(appId: Int64, since: Timestamp, until: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [CategoryUsage] {
        let w = MismatchWindow(since: since, until: until)
        try fold.foldBeforeReading(on: connection) // pending deltas first: count every acknowledged event
        return try Self.parseUsage(try connection.query(EmbeddedSQL.mismatchUsageWindow, [
            String(appId), w.hourStart.description, w.fullDaysStart.description, w.fullDaysEnd.description, w.until.description,
        ]))
    }

    /// Rows of (version, platform, type, category, action, registered, count, first µs, last µs),
    /// in that order (the raw-events baseline of the benchmark names its columns differently).
    package static func parseUsage(_ result: QueryResult) throws(DatabaseError) -> [CategoryUsage] {
        var out: [CategoryUsage] = []
        out.reserveCapacity(result.rows.count)
        for row in result.namedRows {
            let (version, platform, type, category, action, flag, count, first, last) =
                try row.decode((String, String, EventType, String, String, Int16, Int64, Timestamp, Timestamp).self)
            out.append(CategoryUsage(appVersion: version, platform: platform, type: type, category: category,
                                     action: action.isEmpty ? nil : action,
                                     registration: RegistrationReport(rawValue: flag) ?? .notReported, count: count,
                                     firstSeen: first, lastSeen: last))
        }
        return out
    }

    /// `parseUsage` over rows as text (the benchmark's raw scan).
    package static func parseUsage(_ rows: [[String?]]) throws(DatabaseError) -> [CategoryUsage] {
        try parseUsage(QueryResult(columns: [], rows: rows, affectedRows: 0))
    }

    /// The findings of one app over [since, until), merged across app versions.
    public func report(appId: Int64, appName: String, since: Timestamp, until: Timestamp,
                       on connection: PostgresConnection) throws(DatabaseError) -> MismatchReport {
        // Read again when a standby cancels a read with a recovery conflict (40001), as
        // PostgresConnection.readOnlySnapshot does for the report.
        var attempt = 1
        let (usage, manifests) = try { () throws(DatabaseError) -> ([CategoryUsage], [String: Manifest]) in
            while true {
                do throws(DatabaseError) {
                    return (try self.usage(appId: appId, since: since, until: until, on: connection),
                            try ManifestStore().currentManifests(appId: appId, on: connection, cache: manifestCache))
                } catch where error.isTransientConflict && attempt < 3 && connection.isUsable {
                    attempt += 1
                }
            }
        }()
        return MismatchReport(app: appName, since: since, until: until,
                              findings: MismatchDetector(rules: rules).findings(usage: usage, manifests: manifests))
    }

    /// Per-version findings, the unit of a webhook message.
    public func versionFindings(appId: Int64, since: Timestamp, until: Timestamp,
                                on connection: PostgresConnection) throws(DatabaseError) -> [MismatchFinding] {
        let usage = try usage(appId: appId, since: since, until: until, on: connection)
        let manifests = try ManifestStore().currentManifests(appId: appId, on: connection, cache: manifestCache)
        return MismatchDetector(rules: rules).versionFindings(usage: usage, manifests: manifests)
    }

    /// Apps with any usage since `since`.
    public func activeApps(since: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [(appId: Int64, name: String)] {
        try fold.foldBeforeReading(on: connection)
        return try connection.query(EmbeddedSQL.mismatchActiveApps, [since.description]).namedRows.map { (row) throws(DatabaseError) in
            (try row.decode("app_id"), try row.decode("name"))
        }
    }
}
