/// Backoff parameters. Delays are seconds.
public struct RetryPolicy: Sendable, Equatable {
    public var baseDelay: Double
    public var maxDelay: Double
    public var multiplier: Double
    /// A Retry-After longer than this is capped (a misconfigured proxy must not park the queue for days).
    public var maxRetryAfter: Double
    /// Up to this fraction is added to a Retry-After, so devices told the same value spread out.
    public var retryAfterJitter: Double

    public init(baseDelay: Double = 1, maxDelay: Double = 300, multiplier: Double = 2, maxRetryAfter: Double = 3600,
                retryAfterJitter: Double = 0.1) {
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(self.baseDelay, maxDelay)
        self.multiplier = max(1, multiplier)
        self.maxRetryAfter = max(0, maxRetryAfter)
        self.retryAfterJitter = max(0, retryAfterJitter)
    }
}
