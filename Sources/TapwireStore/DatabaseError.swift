import TapwireCore

/// An error from PostgreSQL or from talking to it, carrying the SQLSTATE when the server sent one
/// and the name of the statement that failed (its file under `sql/`, see `SQL`).
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case connectionFailed = "db_connection_failed"
        case connectionLost = "db_connection_lost"
        case queryFailed = "db_query_failed"
        case copyFailed = "db_copy_failed"
        case unexpectedResult = "db_unexpected_result"
        case migrationFailed = "db_migration_failed"
    }

    public var code: Code
    /// The five-character SQLSTATE, e.g. 23505 unique_violation, 40P01 deadlock_detected.
    public var sqlState: String?
    public var message: String
    /// The statement that failed, e.g. `sql/queries/report_counts.sql` (`SQL.name`); nil when no
    /// statement was running (a failed connect). Never part of `code`, which stays stable.
    public var query: String?

    public init(_ code: Code, sqlState: String? = nil, _ message: String, query: String? = nil) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
        self.query = query
    }

    /// `db_query_failed [23505] in sql/queries/app_create.sql: duplicate key …`
    public var description: String {
        "\(code.rawValue)" + (sqlState.map { " [\($0)]" } ?? "") + (query.map { " in \($0)" } ?? "") + ": \(message)"
    }

    /// The fields a log line about this error carries: code, SQLSTATE and the failed statement's
    /// name (never the message, which can quote row values).
    public var logFields: [(String, LogValue)] {
        [("code", .string(code.rawValue)), ("sqlstate", .string(sqlState ?? "")), ("query", .string(query ?? ""))]
    }

    /// The same error, naming `statement` unless it already names one.
    func naming(_ statement: SQL) -> DatabaseError {
        var named = self
        if named.query == nil { named.query = statement.name }
        return named
    }

    /// The server is gone or refusing connections: callers answer 503 and reconnect.
    public var isUnavailable: Bool {
        if code == .connectionFailed || code == .connectionLost { return true }
        guard let state = sqlState else { return false }
        // 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now;
        // 53300: too many connections.
        return state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03" || state == "53300"
    }

    /// A transaction that lost a race and can simply run again (40001 serialization failure,
    /// which is also how a hot standby cancels a query that conflicts with recovery; 40P01 deadlock).
    public var isTransientConflict: Bool { sqlState == "40001" || sqlState == "40P01" }

    // The SQLSTATEs the code acts on, named once (PostgreSQL manual, Appendix A), so no caller
    // compares codes by hand and none reads a message.

    /// 23505: a unique index refused a row (a duplicate id, a name taken).
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// XX000 (internal_error): besides a real internal error, what Citus raises for any error a
    /// worker raised during a COPY into a distributed table, a duplicate key included: its COPY
    /// passes on the worker's message but not its SQLSTATE (docs/deployment.md, "Where PostgreSQL
    /// and Citus differ"). So it says only that the COPY failed, never why.
    public var isInternalError: Bool { sqlState == "XX000" }
    /// 42501 or 25006: the role may not write, or the session is read-only (a standby, a
    /// read-only role such as Grafana's).
    public var isNotWritable: Bool { sqlState == "42501" || sqlState == "25006" }
    /// 22023: a parameter the server does not know, such as a time zone name.
    public var isInvalidParameterValue: Bool { sqlState == "22023" }
    /// 22007 or 22008: a date or time malformed or out of range.
    public var isInvalidDateTime: Bool { sqlState == "22007" || sqlState == "22008" }
    /// 55P03: a lock was not available within `lock_timeout` (or NOWAIT).
    public var isLockNotAvailable: Bool { sqlState == "55P03" }
    /// 57014: the statement was cancelled (its `statement_timeout` passed, or a cancel request).
    public var isQueryCanceled: Bool { sqlState == "57014" }
    /// Cancelled by the server at the operator's `statement_timeout` or `lock_timeout` (57014,
    /// 55P03): the same work may pass later (docs/deployment.md, "The server's timeouts").
    public var isServerTimeout: Bool { Self.isServerTimeout(sqlState: sqlState) }
    /// The same test for a SQLSTATE carried without its error (`CommitFailure.rejected`).
    public static func isServerTimeout(sqlState: String?) -> Bool { sqlState == "57014" || sqlState == "55P03" }
}
