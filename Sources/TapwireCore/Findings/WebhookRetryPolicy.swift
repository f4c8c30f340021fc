/// The retry rules of the webhook, as a pure function of the attempt count and the outcome.
/// Transient failures are retried forever with capped exponential backoff and full jitter (a
/// receiver that is down delays messages, never loses them); a refusal is retried a few times,
/// since a webhook that was just being reconfigured may come back, then given up.
public struct WebhookRetryPolicy: Sendable, Equatable {
    public var baseSeconds: Double
    public var maxSeconds: Double
    public var maxAttemptsWhenRejected: Int

    public init(baseSeconds: Double = 1, maxSeconds: Double = 300, maxAttemptsWhenRejected: Int = 5) {
        self.baseSeconds = baseSeconds
        self.maxSeconds = maxSeconds
        self.maxAttemptsWhenRejected = maxAttemptsWhenRejected
    }

    /// `attempts` counts the attempt that produced `outcome` (1 after the first try).
    public func decide<G: RandomNumberGenerator>(attempts: Int, outcome: WebhookOutcome, using generator: inout G) -> WebhookDecision {
        switch outcome {
        case .delivered:
            return .markSent
        case .rejected:
            if attempts >= maxAttemptsWhenRejected { return .giveUp }
            return .retry(afterSeconds: delay(attempts: attempts, using: &generator))
        case .transientFailure(_, let retryAfter, _):
            let backoff = delay(attempts: attempts, using: &generator)
            // Honour Retry-After, within the cap, when it asks for longer than our backoff.
            if let retryAfter, retryAfter.isFinite, retryAfter > backoff { return .retry(afterSeconds: min(retryAfter, maxSeconds)) }
            return .retry(afterSeconds: backoff)
        }
    }

    /// Exponential with full jitter in [ceiling/2, ceiling], as `Backoff` does.
    func delay<G: RandomNumberGenerator>(attempts: Int, using generator: inout G) -> Double {
        var backoff = Backoff(baseSeconds: baseSeconds, maxSeconds: maxSeconds)
        for _ in 1..<max(1, attempts) { _ = backoff.nextDelay(using: &generator) }
        return backoff.nextDelay(using: &generator)
    }
}
