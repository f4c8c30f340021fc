/// Why the queue waits before the next attempt.
public enum WaitReason: String, Sendable, Equatable {
    case network, serverError, unavailable, rateLimited, timeout, unauthorized, forbidden
    case unsupportedEncoding, unreadableResponse, unexpectedStatus
}
