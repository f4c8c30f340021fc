import TapwireCore

/// Mismatch detection over the usage rollups (migration 0020): it reads rollup rows (whole days
/// from the daily table, edge hours from the hourly one) and the current manifests, never raw
/// events, so its cost grows with days x event shapes. The findings go out through the one
/// outbox of every family (FindingOutbox.swift).
public struct MismatchStore: Sendable {
    public var rules: MismatchRules

    public init(rules: MismatchRules = MismatchRules()) { self.rules = rules }

    /// The rollups of one app summed over [since, until); `since` is rounded down to its hour.
    public func usage(appId: Int64, since: Timestamp, until: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [CategoryUsage] {
        let w = MismatchWindow(since: since, until: until)
        try RollupStore().foldBeforeReading(on: connection) // pending deltas first: count every acknowledged event
        let result = try connection.query(EmbeddedSQL.mismatchUsageWindow, [
            String(appId), w.hourStart.description, w.fullDaysStart.description, w.fullDaysEnd.description, w.until.description,
        ])
        return try Self.parseUsage(result.rows)
    }

    /// Rows of (version, platform, type, category, action, registered, count, first µs, last µs).
    package static func parseUsage(_ rows: [[String?]]) throws(DatabaseError) -> [CategoryUsage] {
        var out: [CategoryUsage] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            guard row.count == 9, let version = row[0], let platform = row[1], let type = row[2].flatMap(EventType.init(rawValue:)),
                  let category = row[3], let action = row[4], let flag = row[5].flatMap({ Int16($0) }),
                  let count = row[6].flatMap({ Int64($0) }), let first = row[7].flatMap({ Int64($0) }), let last = row[8].flatMap({ Int64($0) })
            else { throw DatabaseError(.unexpectedResult, "mismatch usage row has an unexpected shape") }
            out.append(CategoryUsage(appVersion: version, platform: platform, type: type, category: category,
                                     action: action.isEmpty ? nil : action,
                                     registration: RegistrationReport(rawValue: flag) ?? .notReported, count: count,
                                     firstSeen: Timestamp(microseconds: first), lastSeen: Timestamp(microseconds: last)))
        }
        return out
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
                            try ManifestStore().currentManifests(appId: appId, on: connection))
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
        let manifests = try ManifestStore().currentManifests(appId: appId, on: connection)
        return MismatchDetector(rules: rules).versionFindings(usage: usage, manifests: manifests)
    }

    /// Apps with any usage since `since`.
    public func activeApps(since: Timestamp, on connection: PostgresConnection) throws(DatabaseError) -> [(appId: Int64, name: String)] {
        try RollupStore().foldBeforeReading(on: connection)
        return try connection.query(EmbeddedSQL.mismatchActiveApps, [since.description]).rows.compactMap { row in
            guard let id = row[0].flatMap({ Int64($0) }), let name = row[1] else { return nil }
            return (id, name)
        }
    }
}
