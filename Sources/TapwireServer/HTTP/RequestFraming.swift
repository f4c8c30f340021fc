import TapwireCore

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
