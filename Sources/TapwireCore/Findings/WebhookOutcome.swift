/// What one attempt at delivering a message came to (the webhook driver maps HTTP statuses to
/// these: TapwireServer/Findings/FindingWebhook.swift).
public enum WebhookOutcome: Sendable, Equatable {
    /// Any 2xx.
    case delivered(status: Int)
    /// No answer (refused, reset, timed out) or an answer worth retrying: 408, 429, 5xx.
    /// `retryAfterSeconds` is the receiver's Retry-After, if it sent one.
    case transientFailure(status: Int?, retryAfterSeconds: Double?, reason: String)
    /// Any other status: the receiver understood and refused (a bad URL, a revoked hook).
    case rejected(status: Int, reason: String)
}
