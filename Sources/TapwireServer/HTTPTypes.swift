import TapwireCore

/// What is known of a request once its headers have arrived, before any of the body is read:
/// enough to refuse it early (unknown route, bad key shape, Content-Length over the limit).
public struct RequestHead: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    /// Lowercased names. A repeated header keeps its last value.
    public var headers: [String: String]

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    public var contentLength: Int? { header("content-length").flatMap { Int($0.trimmingCharacters(in: [" "])) } }
}

/// A request with its body fully read and decoded (decompressed when it was gzip or deflate).
public struct HTTPRequest: Sendable {
    public var head: RequestHead
    public var body: [UInt8]
    /// When the last byte of the body arrived: the receive time of clock-skew correction.
    public var receivedAt: Timestamp
    /// Bytes on the wire, before decompression.
    public var wireBytes: Int

    public var method: String { head.method }
    public var path: String { head.path }
    public var query: [String: String] { head.query }
    public func header(_ name: String) -> String? { head.header(name) }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Counts for the request's log line (events accepted, duplicates, …); never sent.
    public var annotations: [String: Int] = [:]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], annotations: [String: Int] = [:]) {
        self.status = status
        self.headers = headers
        self.body = body
        self.annotations = annotations
    }

    public static func json(_ status: Int, _ value: JSONValue, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: value.serializedBytes())
    }

    public static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }

    public static func error(_ error: APIError) -> HTTPResponse {
        var headers: [(String, String)] = [("Cache-Control", "no-store")]
        if let retry = error.retryAfterSeconds { headers.append(("Retry-After", String(retry))) }
        if error.code == .unauthorized { headers.append(("WWW-Authenticate", "Basic realm=\"tapwire\"")) }
        if let allow = error.allow { headers.append(("Allow", allow)) }
        return .json(error.code.status, ["error": ["code": .string(error.code.rawValue), "message": .string(error.message)]],
                     headers: headers)
    }
}

/// The limits the server applies to one route's body while it is read.
public struct BodyPolicy: Sendable {
    public var maxWireBytes: Int
    public var maxDecodedBytes: Int
    public init(maxWireBytes: Int, maxDecodedBytes: Int) {
        self.maxWireBytes = maxWireBytes
        self.maxDecodedBytes = maxDecodedBytes
    }
}

public enum Admission: Sendable {
    /// Read the body under this policy (nil: the route takes no body), then call `handle`.
    case accept(BodyPolicy?)
    case reject(HTTPResponse)
}

/// The application side of the HTTP server.
public protocol HTTPHandler: Sendable {
    /// Runs on the HTTP thread when the headers are in; must not block.
    func admit(_ head: RequestHead) -> Admission
    /// Runs on the HTTP thread when the body is in. `respond` may be called now or later, from
    /// any thread, exactly once; until then the connection is suspended, holding no thread.
    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void)
    /// Called once per finished request (for logs and metrics), with the response's annotations.
    func completed(_ head: RequestHead, status: Int, annotations: [String: Int], nanoseconds: UInt64)
}
