import TapwireCore
import TapwireReport
import TapwireStore

public struct APIError: Error, Sendable, Equatable {
    public var code: APIErrorCode
    public var message: String
    public var retryAfterSeconds: Int?
    /// For 405: the methods the path takes.
    public var allow: String?

    public init(_ code: APIErrorCode, _ message: String, retryAfterSeconds: Int? = nil, allow: String? = nil) {
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.allow = allow
    }
}

// MARK: - The one table from each layer's errors to what a client is told

extension APIError {
    /// A database error: unreachable → 503; a read a standby cancelled (40001) even after the
    /// retries → 503; a statement the database cancelled at the operator's `statement_timeout`
    /// (57014) or `lock_timeout` (55P03) → 503 `database_timeout`; anything else → 500 naming its
    /// stable code, never its message (which can quote row values). `what` names what failed,
    /// e.g. "the report".
    public init(_ error: DatabaseError, doing what: String) {
        if error.isUnavailable {
            self.init(.databaseUnavailable, "the database is unavailable; retry later", retryAfterSeconds: 1)
        } else if error.isTransientConflict {
            self.init(.databaseUnavailable, "\(what): the reads were cancelled by a conflict (on a standby, with its replay) after retries; retry later",
                      retryAfterSeconds: 1)
        } else if error.isServerTimeout {
            self.init(.databaseTimeout, "\(what) was cancelled by the database (its statement_timeout or lock_timeout); retry later, or ask for less",
                      retryAfterSeconds: 1)
        } else {
            self.init(.internalError, "\(what) failed (\(error.code.rawValue))")
        }
    }

    /// No connection to run the work on, or the work's own error, mapped by `failed`.
    public init<Failure>(_ error: ExecutorError<Failure>, doing what: String, failed: (Failure) -> APIError) {
        switch error {
        case .unavailable(let database): self.init(database, doing: what)
        case .failed(let failure): self = failed(failure)
        }
    }

    /// A report request the caller must change: 400 whatever the code.
    public init(_ error: ReportError) {
        switch error.code {
        case .invalidParameter, .unknownTimeZone, .invalidRange: self.init(.badRequest, error.message)
        }
    }

    public init(_ failure: ReportFailure, doing what: String) {
        switch failure {
        case .invalid(let invalid): self.init(invalid)
        case .database(let database): self.init(database, doing: what)
        }
    }

    /// A findings query the caller must change (`FindingsQuery.parse`): 400 whatever the code.
    public init(_ error: FindingsQueryError) {
        self.init(.badRequest, error.message)
    }

    /// A batch refused as a whole.
    public init(_ error: BatchError) {
        let code: APIErrorCode
        switch error.code {
        case .malformedJSON: code = .malformedJSON
        case .invalidUTF8: code = .invalidUTF8
        case .tooDeep: code = .jsonTooDeep
        case .invalidBatch: code = .invalidBatch
        case .tooManyEvents: code = .tooManyEvents
        }
        self.init(code, error.message)
    }

    /// A manifest refused.
    public init(_ error: ManifestError) {
        let code: APIErrorCode
        switch error.code {
        case .invalidUTF8: code = .invalidUTF8
        case .malformedJSON: code = .malformedJSON
        case .invalidManifest: code = .invalidManifest
        }
        self.init(code, error.message)
    }

    /// A group commit that stored nothing.
    public init(_ failure: CommitFailure) {
        switch failure {
        case .unavailable(let retry):
            self.init(.databaseUnavailable, "the database is unavailable; nothing was stored, keep the events and retry", retryAfterSeconds: retry)
        case .overloaded(let retry):
            self.init(.overloaded, "the collector is behind on writes; nothing was stored, retry shortly", retryAfterSeconds: retry)
        case .rejected where failure.isServerTimeout:
            self.init(.databaseTimeout, "the database cancelled the batch's commit (its statement_timeout or lock_timeout); nothing was stored, keep the events and retry",
                      retryAfterSeconds: 1)
        case .rejected(let code, _):
            self.init(.internalError, "the database refused the batch (\(code)); nothing was stored")
        }
    }
}
