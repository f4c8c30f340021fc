import TapwireCore
import TapwireReport
import TapwireStore

/// Every error the HTTP API returns has one of these stable codes; the status for each is in
/// exactly one place, `status`, so no layer ever parses a message to decide.
public enum APIErrorCode: String, Sendable, CaseIterable {
    case badRequest = "bad_request"
    case malformedJSON = "malformed_json"
    case invalidUTF8 = "invalid_utf8"
    case jsonTooDeep = "json_too_deep"
    case invalidBatch = "invalid_batch"
    case invalidManifest = "invalid_manifest"
    case invalidCompression = "invalid_compression"
    case unauthorized
    case forbidden
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case requestTimeout = "request_timeout"
    case uriTooLong = "uri_too_long"
    case payloadTooLarge = "payload_too_large"
    case decompressedTooLarge = "decompressed_too_large"
    case tooManyEvents = "too_many_events"
    case unsupportedEncoding = "unsupported_encoding"
    case rateLimited = "rate_limited"
    case internalError = "internal_error"
    case overloaded
    case databaseUnavailable = "database_unavailable"

    public var status: Int {
        switch self {
        case .badRequest, .malformedJSON, .invalidUTF8, .jsonTooDeep, .invalidBatch, .invalidManifest, .invalidCompression: return 400
        case .unauthorized: return 401
        case .forbidden: return 403
        case .notFound: return 404
        case .methodNotAllowed: return 405
        case .requestTimeout: return 408
        case .uriTooLong: return 414
        case .payloadTooLarge, .decompressedTooLarge, .tooManyEvents: return 413
        case .unsupportedEncoding: return 415
        case .rateLimited: return 429
        case .internalError: return 500
        case .overloaded, .databaseUnavailable: return 503
        }
    }
}

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
    /// retries → 503; anything else → 500 naming its stable code, never its message (which can
    /// quote row values). `what` names what failed, e.g. "the report".
    public init(_ error: DatabaseError, doing what: String) {
        if error.isUnavailable {
            self.init(.databaseUnavailable, "the database is unavailable; retry later", retryAfterSeconds: 1)
        } else if error.isTransientConflict {
            self.init(.databaseUnavailable, "\(what): the reads were cancelled by a conflict (on a standby, with its replay) after retries; retry later",
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
        case .rejected(let code, _):
            self.init(.internalError, "the database refused the batch (\(code)); nothing was stored")
        }
    }
}
