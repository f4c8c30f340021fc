import TapwireCore

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
