import TapwireCore
import TapwireStore

/// The services every route shares.
public struct CollectorServices: Sendable {
    public let configuration: CollectorConfiguration
    public let database: DatabaseExecutor
    public let committer: GroupCommitter
    public let metrics: MetricsRegistry
    public let logger: Logger
    public let rateLimiter: RateLimiter
    /// The mismatch counters of stored events, with their cache of each app's manifests.
    public let mismatchMetrics: MismatchMetrics
}
