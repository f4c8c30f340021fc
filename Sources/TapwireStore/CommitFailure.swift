import Foundation

/// Why a request's events were not stored. Every case means "not stored": the client keeps them.
public enum CommitFailure: Error, Sendable, Equatable {
    /// The database is unreachable; retry after the given seconds.
    case unavailable(retryAfterSeconds: Int)
    /// The write queue is full (the database is falling behind); retry after the given seconds.
    case overloaded(retryAfterSeconds: Int)
    /// The database refused this request's rows: for a reason retrying will not fix, or, where
    /// `isServerTimeout`, because it cancelled the commit at the operator's timeouts.
    case rejected(code: String, sqlState: String?)

    /// The database cancelled the commit at its `statement_timeout` or `lock_timeout`.
    public var isServerTimeout: Bool {
        if case .rejected(_, let sqlState) = self { return DatabaseError.isServerTimeout(sqlState: sqlState) }
        return false
    }
}
