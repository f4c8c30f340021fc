import TapwireCore

/// What is known of a request once its headers have arrived, before any of the body is read:
/// enough to refuse it early (unknown route, bad key shape, Content-Length over the limit).
public struct RequestHead: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    /// Lowercased names. A repeated header keeps its last value.
    public var headers: [String: String]
    /// Every Content-Length and Transfer-Encoding field as it arrived, repeats included: `headers`
    /// keeps the last of a repeated field while libmicrohttpd frames the body by the first.
    public var framing = RequestFraming()

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    public var contentLength: Int? { header("content-length").flatMap { Int($0.trimmingCharacters(in: [" "])) } }
}

/// The header fields that say where a request's body ends (RFC 9112 §6.3), each value in the
/// order it arrived. When they do not name one end for certain, a proxy in front of the
/// collector and the collector may each pick a different end, and the bytes one of them takes
/// for body the other takes for the next request (request smuggling). So such a request is
/// refused, whatever its route, before any of its body is read.
public struct RequestFraming: Sendable, Equatable {
    /// Lowercased names of the fields kept here.
    public static let fieldNames: Set<String> = ["content-length", "transfer-encoding"]

    public var contentLength: [String]
    public var transferEncoding: [String]

    public init(contentLength: [String] = [], transferEncoding: [String] = []) {
        self.contentLength = contentLength
        self.transferEncoding = transferEncoding
    }

    /// Why the body's end is ambiguous, or nil when it is certain. The rules, strictest reading
    /// of RFC 9112 §6.3 and RFC 9110 §8.6:
    /// - Content-Length at most once. Two different values must be refused; a repeat of the same
    ///   value may be accepted or refused, and is refused, so one rule covers both (and
    ///   libmicrohttpd already refuses the same value repeated in one field, `42, 42`).
    /// - Transfer-Encoding at most once, never with Content-Length (a server may let it win, but
    ///   which of the two a proxy obeyed is unknowable), and only `chunked`: the one coding
    ///   libmicrohttpd decodes. Any other leaves the end unknown, and it used to hold the
    ///   connection until the idle timeout.
    public var problem: String? {
        if contentLength.count > 1 {
            return "Content-Length is sent \(contentLength.count) times (\(Self.echo(contentLength))); send it once"
        }
        if transferEncoding.count > 1 {
            return "Transfer-Encoding is sent \(transferEncoding.count) times (\(Self.echo(transferEncoding))); send it once, as chunked"
        }
        guard let coding = transferEncoding.first else { return nil }
        if !contentLength.isEmpty {
            return "the request has both Content-Length and Transfer-Encoding; send only one of them"
        }
        if coding.trimmingCharacters(in: [" ", "\t"]).lowercased() != "chunked" {
            return "Transfer-Encoding \(Self.echo([coding])) is not supported; send Content-Length, or Transfer-Encoding: chunked"
        }
        return nil
    }

    private static func echo(_ values: [String]) -> String { FieldRules.truncatedForEcho(values.joined(separator: " | ")) }
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

/// Header pairs are tuples, which are not Equatable: compared field by field, in order.
extension HTTPResponse: Equatable {
    public static func == (a: HTTPResponse, b: HTTPResponse) -> Bool {
        a.status == b.status && a.body == b.body && a.annotations == b.annotations
            && a.headers.elementsEqual(b.headers) { $0.0 == $1.0 && $0.1 == $1.1 }
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

/// How an admitted request is answered, decided once when its headers arrive: the route's
/// handler, with what admission learnt (the route, the key) captured, so nothing about the
/// request is matched or parsed a second time.
public struct Responder: Sendable {
    /// The request's name in logs and metrics (its route), from a bounded set.
    public var label: String
    /// Runs on the HTTP thread when the body is in. `respond` may be called now or later, from
    /// any thread, exactly once; until then the connection is suspended, holding no thread.
    public var handle: @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void

    public init(label: String, handle: @escaping @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void) {
        self.label = label
        self.handle = handle
    }
}

public enum Admission: Sendable {
    /// Read the body under this policy (nil: the route takes no body), then hand the request to
    /// the responder.
    case accept(BodyPolicy?, Responder)
    /// Answer now, without reading the body; `label` names the request in logs and metrics.
    case reject(HTTPResponse, label: String)
}

/// The application side of the HTTP server.
public protocol HTTPHandler: Sendable {
    /// Runs on the HTTP thread when the headers are in; must not block.
    func admit(_ head: RequestHead) -> Admission
    /// Called once per finished request (for logs and metrics), with the label admission gave
    /// it (nil when the server refused the head before asking) and the response's annotations.
    func completed(_ head: RequestHead, label: String?, status: Int, annotations: [String: Int], nanoseconds: UInt64)
}
