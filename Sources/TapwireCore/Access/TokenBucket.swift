/// A token bucket, the per-key rate limit: `rate` tokens a second, holding at most `burst`.
/// Pure: the caller passes the time, so it is tested without sleeping.
public struct TokenBucket: Sendable, Equatable {
    public let ratePerSecond: Double
    public let burst: Double
    public private(set) var tokens: Double
    public private(set) var updatedAt: Timestamp

    public init(ratePerSecond: Double, burst: Double, now: Timestamp) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        self.tokens = burst
        self.updatedAt = now
    }

    public enum Decision: Sendable, Equatable {
        case allowed
        /// Seconds until `count` tokens will be there (at least 1, as Retry-After wants whole seconds).
        case limited(retryAfterSeconds: Int)
    }

    public mutating func take(_ count: Int, now: Timestamp) -> Decision {
        refill(now: now)
        let needed = Double(count)
        if needed <= tokens {
            tokens -= needed
            return .allowed
        }
        let wait = needed > burst ? Double.infinity : (needed - tokens) / ratePerSecond
        return .limited(retryAfterSeconds: wait.isFinite ? max(1, Int(wait.rounded(.up))) : 60)
    }

    mutating func refill(now: Timestamp) {
        let elapsed = Double(max(0, now.microseconds - updatedAt.microseconds)) / 1_000_000
        tokens = min(burst, tokens + elapsed * ratePerSecond)
        updatedAt = max(updatedAt, now)
    }
}
