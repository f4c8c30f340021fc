import Foundation
import Synchronization
import TapwireCore
import TapwireStore

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
