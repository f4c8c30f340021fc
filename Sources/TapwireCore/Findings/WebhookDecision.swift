/// What the driver does next with one queued message.
public enum WebhookDecision: Sendable, Equatable {
    case markSent
    case retry(afterSeconds: Double)
    /// Stop: kept in the outbox as `failed` with its last error, for a person to look at.
    case giveUp
}
