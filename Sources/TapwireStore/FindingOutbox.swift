import TapwireCore

/// The webhook outbox of every rule family (finding_alerts, migrations 0021 and 0090): a finding
/// is announced once per `FindingKey`, ever, across restarts and any number of collectors. The
/// primary key is the claim; delivery leases a row so two collectors never send it at once, and
/// it is marked sent only after the receiver's 2xx. Messages arrive rendered (the store knows no
/// message format): TapwireReport/FindingMessages.swift makes them.
public struct FindingOutbox: Sendable {
    public init() {}

    /// One message to queue, fixed when its finding is first seen.
    public struct Message: Sendable, Equatable {
        public var key: FindingKey
        public var severity: FindingSeverity
        /// The JSON body the webhook posts.
        public var payload: String
        public var firstSeen: Timestamp?

        public init(key: FindingKey, severity: FindingSeverity, payload: String, firstSeen: Timestamp?) {
            self.key = key
            self.severity = severity
            self.payload = payload
            self.firstSeen = firstSeen
        }
    }

    /// A message waiting in the outbox, leased to this collector.
    public struct LeasedMessage: Sendable, Equatable, PostgresRowDecodable {
        public var key: FindingKey
        public var payload: String
        /// Including this one.
        public var attempts: Int

        /// A row of sql/queries/finding_alert_lease.sql.
        public init(row: QueryResult.Row) throws(DatabaseError) {
            key = FindingKey(appId: try row.decode("app_id"), appVersion: try row.decode("app_version"), kind: try row.decode("kind"),
                             category: try row.decode("category"), detail: try row.decode("detail"))
            payload = try row.decode("payload")
            attempts = try row.decode("attempts")
        }
    }

    /// Queues the messages whose keys no one queued before (all of one app); returns the keys
    /// this call queued.
    @discardableResult
    public func enqueue(appId: Int64, _ messages: [Message], on connection: PostgresConnection) throws(DatabaseError) -> [FindingKey] {
        let mine = messages.filter { $0.key.appId == appId }
        guard !mine.isEmpty else { return [] }
        let rows = try connection.query(EmbeddedSQL.findingAlertEnqueue, [
            String(appId), PostgresValue.textArray(mine.map(\.key.appVersion)), PostgresValue.textArray(mine.map(\.key.kind.rawValue)),
            PostgresValue.textArray(mine.map(\.key.category)), PostgresValue.textArray(mine.map(\.key.detail)),
            PostgresValue.textArray(mine.map(\.severity.rawValue)), PostgresValue.textArray(mine.map(\.payload)),
            PostgresValue.textArray(mine.map { $0.firstSeen?.description ?? "" }),
        ])
        return try rows.namedRows.map { (row) throws(DatabaseError) in
            FindingKey(appId: appId, appVersion: try row.decode("app_version"), kind: try row.decode("kind"),
                       category: try row.decode("category"), detail: try row.decode("detail"))
        }
    }

    /// Leases up to `limit` due messages to `owner` for `leaseSeconds`: lists the due ones, then
    /// leases those no other collector leased in between.
    public func lease(owner: String, leaseSeconds: Double, limit: Int, on connection: PostgresConnection) throws(DatabaseError) -> [LeasedMessage] {
        let due = try connection.query(EmbeddedSQL.findingAlertDue, [String(limit)]).namedRows.map { (row) throws(DatabaseError) in
            FindingKey(appId: try row.decode("app_id"), appVersion: try row.decode("app_version"), kind: try row.decode("kind"),
                       category: try row.decode("category"), detail: try row.decode("detail"))
        }
        guard !due.isEmpty else { return [] }
        return try connection.query(EmbeddedSQL.findingAlertLease, [
            owner, String(leaseSeconds), PostgresValue.textArray(due.map { String($0.appId) }), PostgresValue.textArray(due.map(\.appVersion)),
            PostgresValue.textArray(due.map(\.kind.rawValue)), PostgresValue.textArray(due.map(\.category)), PostgresValue.textArray(due.map(\.detail)),
        ]).decode(LeasedMessage.self)
    }

    /// Records what `WebhookRetryPolicy` decided for a leased message. False when the lease was
    /// lost meanwhile (then the row is left to its new holder).
    @discardableResult
    public func settle(_ message: LeasedMessage, owner: String, decision: WebhookDecision, error: String?,
                       on connection: PostgresConnection) throws(DatabaseError) -> Bool {
        let (state, delay): (String, Double) = switch decision {
        case .markSent: ("sent", 0)
        case .retry(let seconds): ("retry", seconds)
        case .giveUp: ("failed", 0)
        }
        let key = message.key
        let result = try connection.query(EmbeddedSQL.findingAlertSettle, [
            String(key.appId), key.appVersion, key.kind.rawValue, key.category, key.detail, owner, state,
            String(delay), error.map { String($0.prefix(500)) },
        ])
        return result.affectedRows == 1
    }

    /// The outbox by state ("pending", "sent", "failed").
    public func counts(on connection: PostgresConnection) throws(DatabaseError) -> [String: Int64] {
        var out: [String: Int64] = [:]
        for row in try connection.query(EmbeddedSQL.findingAlertCounts).namedRows {
            let (state, count) = try row.decode((String, Int64).self)
            out[state] = count
        }
        return out
    }
}
