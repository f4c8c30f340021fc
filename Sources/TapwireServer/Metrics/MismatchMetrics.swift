import Synchronization
import TapwireCore
import TapwireStore

/// Mismatch counters in `/metrics`: `tapwire_mismatch_events_total{app, kind, category}` counts the
/// stored events each rule flags, as they are stored (the report reads the rollups instead).
///
/// The counter exposes `_created` gauges (when each series was created), so the alert rules see the
/// events that created a series (docs/alerting.md); so does FindingMetrics' webhook counter.
///
/// Cardinality cap: the family holds at most `maxSeries` (1,000) series. Past that, a new
/// category is counted under `category="other"` for its (app, kind), so a flood of random
/// categories adds at most one series per app and kind (MetricsRegistry folds; see there).
///
/// Counting is exact for batches stored whole and for retries (nothing new, nothing counted).
/// A batch that is partly new and partly duplicate is not counted, since the commit does not
/// say which events were new; the report, from the rollups, is exact either way.
///
/// One per collector, an observer of ingestion (`IngestObserver`): it caches each app's
/// manifests, re-read after `ttlSeconds`, so a manifest posted to another collector is picked up
/// within that time, and forgets an app's when this collector stores one. The findings
/// themselves, of every family, are FindingMetrics' gauge.
public final class MismatchMetrics: IngestObserver {
    public static let events = "tapwire_mismatch_events_total"
    public static let maxSeries = 1000

    public static func declare(in registry: MetricsRegistry) {
        registry.declare(events, help: "Stored events flagged by a category mismatch rule, by app, kind and category (capped: extra categories fold into \"other\").",
                         kind: .counter, labels: ["app", "kind", "category"], foldableLabels: ["category"], maxSeries: maxSeries,
                         exposesCreated: true)
    }

    private struct Entry: Sendable {
        var index: ManifestIndex
        var loadedAt: UInt64
    }

    private let cache = Mutex<[Int64: Entry]>([:])
    private let ttlNanoseconds: UInt64
    private let detector = MismatchDetector()
    private let capacity = 10_000
    private let manifests: any ManifestReader
    private let metrics: MetricsRegistry
    private let executor: HandlerExecutor

    public init(manifests: any ManifestReader, metrics: MetricsRegistry, executor: HandlerExecutor, ttlSeconds: Double = 30) {
        self.executor = executor
        self.manifests = manifests
        self.metrics = metrics
        ttlNanoseconds = UInt64(ttlSeconds * 1e9)
        Self.declare(in: metrics)
    }

    /// Forgets an app's manifests: this collector stored a new one.
    public func manifestStored(appId: Int64) {
        _ = cache.withLock { $0.removeValue(forKey: appId) }
    }

    /// Counts the mismatches in a batch that was just committed. Never blocks: on a cache miss
    /// the manifests are read (on a database thread) and the batch is counted then.
    public func committed(_ batch: StagedBatch, outcome: BatchOutcome, identity: KeyIdentity) {
        guard outcome.stored > 0, outcome.duplicates == 0 else { return }
        let key = identity.appId
        let now = monotonicNanoseconds()
        if let entry = cache.withLock({ $0[key] }), now &- entry.loadedAt < ttlNanoseconds {
            count(batch, app: identity.appName, index: entry.index, metrics: metrics)
            return
        }
        executor.run { [self] in
            guard let current = try? await manifests.currentManifests(appId: key) else { return }
            let index = ManifestIndex(current)
            cache.withLock { all in
                if all.count >= capacity { all.removeAll(keepingCapacity: true) }
                all[key] = Entry(index: index, loadedAt: monotonicNanoseconds())
            }
            count(batch, app: identity.appName, index: index, metrics: metrics)
        }
    }

    func count(_ batch: StagedBatch, app: String, index: ManifestIndex, metrics: MetricsRegistry) {
        struct Key: Hashable {
            var kind: MismatchKind
            var category: String
        }
        var counts: [Key: Int] = [:]
        let version = batch.context.appVersion
        for event in batch.events {
            for c in detector.classify(appVersion: version, type: event.type, category: event.category, action: event.actionIdentifier,
                                       registration: RegistrationReport(event.categoryRegistered), manifests: index) {
                counts[Key(kind: c.kind, category: c.category), default: 0] += 1
            }
        }
        // Sorted, so which categories get a series before the cap does not depend on hashing.
        for (key, n) in counts.sorted(by: { ($0.key.kind, $0.key.category) < ($1.key.kind, $1.key.category) }) {
            metrics.increment(Self.events, [app, key.kind.rawValue, key.category], by: Double(n))
        }
    }
}
