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
    /// The database cancelled the work at the operator's `statement_timeout` or `lock_timeout`
    /// (docs/deployment.md, "The server's timeouts"): the same request may pass when the
    /// database is less busy, or asking for less.
    case databaseTimeout = "database_timeout"

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
        case .overloaded, .databaseUnavailable, .databaseTimeout: return 503
        }
    }
}
