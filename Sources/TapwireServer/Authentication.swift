import Foundation
import Synchronization
import TapwireCore
import TapwireStore

enum BasicAuth {
    /// The key from `Authorization: Basic base64(key:)`; the password part is ignored (Segment's
    /// convention: the write key is the username). Nil when absent or not shaped like a key.
    static func key(from header: String?) -> APIKey? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: [" "])),
              let decoded = String(data: data, encoding: .utf8)
        else { return nil }
        let username = decoded.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return APIKey(parsing: username)
    }
}

/// Resolved keys for a short while, so a request does not cost a database round trip. Unknown
/// keys are remembered too (briefly), so a flood of bad keys does not reach the database.
/// A revoked or expired key stops working within `ttl`.
final class KeyCache: Sendable {
    private struct Entry: Sendable {
        var identity: KeyIdentity?
        var expires: UInt64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let ttl: UInt64
    private let negativeTTL: UInt64
    private let capacity = 50_000

    init(ttlSeconds: Int) {
        ttl = UInt64(max(0, ttlSeconds)) * 1_000_000_000
        negativeTTL = min(ttl, 5_000_000_000)
    }

    enum Lookup { case hit(KeyIdentity?), miss }

    func lookup(_ key: APIKey, now: UInt64) -> Lookup {
        entries.withLock { all in
            guard let entry = all[key.text], entry.expires > now else { return .miss }
            return .hit(entry.identity)
        }
    }

    func store(_ key: APIKey, identity: KeyIdentity?, now: UInt64) {
        entries.withLock { all in
            if all.count >= capacity { all.removeAll(keepingCapacity: true) }
            all[key.text] = Entry(identity: identity, expires: now + (identity == nil ? negativeTTL : ttl))
        }
    }
}

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
