import TapwireCore

/// Mismatch detection over the usage rollups (migration 0020), and the webhook outbox (0021).
/// Detection reads rollup rows (whole days from the daily table, edge hours from the hourly one)
/// and the current manifests, never raw events, so its cost grows with days x event shapes.
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

    // MARK: - The webhook outbox

    /// A message waiting in the outbox, leased to this collector.
    public struct LeasedAlert: Sendable, Equatable {
        public var key: AlertKey
        public var payload: String
        /// Including this one.
        public var attempts: Int
    }

    /// Queues one message per (version, kind, category) not queued before by anyone; returns the
    /// keys this call queued. Findings sharing a key (two unregistered actions of one category)
    /// become one message naming all of them.
    @discardableResult
    public func enqueue(appId: Int64, appName: String, findings: [MismatchFinding],
                        on connection: PostgresConnection) throws(DatabaseError) -> [AlertKey] {
        var grouped: [AlertKey: [MismatchFinding]] = [:]
        var order: [AlertKey] = []
        for f in findings {
            for version in f.appVersions {
                let key = AlertKey(appId: appId, appVersion: version, kind: f.kind, category: f.category)
                if grouped[key] == nil { order.append(key) }
                grouped[key, default: []].append(f)
            }
        }
        guard !order.isEmpty else { return [] }
        var versions: [String] = [], kinds: [String] = [], categories: [String] = [], severities: [String] = []
        var payloads: [String] = [], firsts: [String] = []
        for key in order {
            let group = grouped[key]!
            var lead = group[0]
            let otherActions = group.dropFirst().compactMap(\.action).filter { $0 != lead.action }
            if !otherActions.isEmpty { lead.message += " Also: " + otherActions.map { "\"\($0)\"" }.joined(separator: ", ") + "." }
            lead.firstSeen = group.compactMap(\.firstSeen).min()
            lead.count = group.reduce(0) { $0 + $1.count }
            versions.append(key.appVersion)
            kinds.append(key.kind.rawValue)
            categories.append(key.category)
            severities.append(group.map(\.severity).max()!.rawValue)
            payloads.append(AlertMessage.payload(app: appName, version: key.appVersion, finding: lead).serialized())
            firsts.append(lead.firstSeen?.description ?? "")
        }
        let rows = try connection.query(EmbeddedSQL.mismatchAlertEnqueue, [
            String(appId), PostgresValue.textArray(versions), PostgresValue.textArray(kinds), PostgresValue.textArray(categories),
            PostgresValue.textArray(severities), PostgresValue.textArray(payloads), PostgresValue.textArray(firsts),
        ]).rows
        return rows.compactMap { row in
            guard let version = row[0], let kind = row[1].flatMap(MismatchKind.init(rawValue:)), let category = row[2] else { return nil }
            return AlertKey(appId: appId, appVersion: version, kind: kind, category: category)
        }
    }

    /// Leases up to `limit` due messages to `owner` for `leaseSeconds`.
    public func lease(owner: String, leaseSeconds: Double, limit: Int, on connection: PostgresConnection) throws(DatabaseError) -> [LeasedAlert] {
        try connection.query(EmbeddedSQL.mismatchAlertLease, [owner, String(leaseSeconds), String(limit)]).rows.compactMap { row in
            guard let appId = row[0].flatMap({ Int64($0) }), let version = row[1], let kind = row[2].flatMap(MismatchKind.init(rawValue:)),
                  let category = row[3], let payload = row[4], let attempts = row[5].flatMap({ Int($0) })
            else { return nil }
            return LeasedAlert(key: AlertKey(appId: appId, appVersion: version, kind: kind, category: category),
                               payload: payload, attempts: attempts)
        }
    }

    /// Records what `WebhookRetryPolicy` decided for a leased message. False when the lease was
    /// lost meanwhile (then the row is left to its new holder).
    @discardableResult
    public func settle(_ alert: LeasedAlert, owner: String, decision: WebhookDecision, error: String?,
                       on connection: PostgresConnection) throws(DatabaseError) -> Bool {
        let (state, delay): (String, Double) = switch decision {
        case .markSent: ("sent", 0)
        case .retry(let seconds): ("retry", seconds)
        case .giveUp: ("failed", 0)
        }
        let result = try connection.query(EmbeddedSQL.mismatchAlertSettle, [
            String(alert.key.appId), alert.key.appVersion, alert.key.kind.rawValue, alert.key.category, owner, state,
            String(delay), error.map { String($0.prefix(500)) },
        ])
        return result.affectedRows == 1
    }

    /// The outbox by state ("pending", "sent", "failed").
    public func alertCounts(on connection: PostgresConnection) throws(DatabaseError) -> [String: Int64] {
        var out: [String: Int64] = [:]
        for row in try connection.query(EmbeddedSQL.mismatchAlertCounts).rows {
            if let state = row[0], let n = row[1].flatMap({ Int64($0) }) { out[state] = n }
        }
        return out
    }
}
