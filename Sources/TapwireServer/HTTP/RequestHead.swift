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
