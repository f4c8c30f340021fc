import Synchronization
import TapwireCore

/// Manifests already decoded, by content hash, so a process that reads an app's manifests on every
/// report (a collector serving reports, a dashboard refreshing) decodes each distinct manifest once.
/// The content hash is of the canonical JSON stored with it (`Manifest.contentHash`): a manifest
/// posted again with other content has another hash, so it is read and decoded afresh, and an entry
/// can never be stale. Bounded: past `capacity` entries the oldest goes (docs/reports.md, "What
/// each report reads, and what it costs").
public final class ManifestCache: Sendable {
    /// A real app's forty versions, times the apps a collector serves reports of, fit well within.
    public static let defaultCapacity = 2_048

    public let capacity: Int
    private struct State {
        var manifests: [String: Manifest] = [:]
        /// The hashes in the order they came, oldest first: which one goes when full.
        var order: [String] = []
    }
    private let state = Mutex(State())

    public init(capacity: Int = ManifestCache.defaultCapacity) {
        precondition(capacity > 0, "a manifest cache holds at least one manifest")
        self.capacity = capacity
    }

    /// The manifest whose canonical JSON hashes to `contentHash`, if it was decoded before.
    public func manifest(contentHash: String) -> Manifest? {
        state.withLock { $0.manifests[contentHash] }
    }

    /// Remembers a decoded manifest under the hash of its stored content.
    public func insert(_ manifest: Manifest, contentHash: String) {
        state.withLock { state in
            guard state.manifests.updateValue(manifest, forKey: contentHash) == nil else { return }
            state.order.append(contentHash)
            if state.order.count > capacity {
                state.manifests[state.order.removeFirst()] = nil
            }
        }
    }

    /// How many manifests it holds.
    public var count: Int { state.withLock { $0.manifests.count } }
}
