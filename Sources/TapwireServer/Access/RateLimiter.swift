import Foundation
import Synchronization
import TapwireCore

/// Per-key token buckets: TAPWIRE_RATE_LIMIT events a second, burst twice that (docs/architecture.md, "Limits").
public final class RateLimiter: Sendable {
    private let buckets = Mutex<[String: TokenBucket]>([:])
    public let eventsPerSecond: Double

    public init(eventsPerSecond: Double) { self.eventsPerSecond = eventsPerSecond }

    public var isEnabled: Bool { eventsPerSecond > 0 }

    public func take(_ count: Int, keyId: String, now: Timestamp) -> TokenBucket.Decision {
        guard isEnabled else { return .allowed }
        return buckets.withLock { all in
            var bucket = all[keyId] ?? TokenBucket(ratePerSecond: eventsPerSecond, burst: eventsPerSecond * 2, now: now)
            let decision = bucket.take(count, now: now)
            all[keyId] = bucket
            return decision
        }
    }
}
