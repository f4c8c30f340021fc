import Foundation

/// What went wrong talking to the collector; `code` says which step, for callers that word it
/// their own way (`tapwire demo`).
public struct HTTPClientError: Error, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The host is not an IPv4 address (or `localhost`).
        case badAddress = "bad_address"
        case socketFailed = "socket_failed"
        /// Nothing listens there (or it did not accept in time).
        case connectFailed = "connect_failed"
        case sendFailed = "send_failed"
        /// The server closed (or reset) the connection before a whole response.
        case closed
        /// This connection's own `close()` came first (perhaps from another thread): nothing
        /// was sent or read.
        case closedHere = "closed_here"
        /// No response came within the connection's timeout: the connection may still be open,
        /// and the server may still answer (a different thing from `closed`).
        case timedOut = "timed_out"
        case malformedResponse = "malformed_response"
    }

    public var code: Code
    public var message: String
    public init(_ code: Code, message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}
