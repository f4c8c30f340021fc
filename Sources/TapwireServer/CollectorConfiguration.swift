import TapwireCore
import TapwireStore

/// Everything `tapwire serve` can be told, read once at start (see the CLI for flags and
/// environment variables, and the README for the table of defaults).
public struct CollectorConfiguration: Sendable {
    public var databaseURL: String
    public var http = HTTPServerOptions()
    public var limits = IngestLimits()
    /// Events a second per key; the burst is twice that. 0 turns the limit off (benchmarks).
    public var rateLimitPerSecond: Double = 100_000
    /// Writer threads, each with its own connection, each committing one group at a time.
    public var writers = 2
    /// Events per transaction, the queue's bound, and how long a group lingers to fill while
    /// another writer is busy: the queue's own policy, so its defaults are written once.
    public var groupCommit = GroupCommitPolicy()
    /// How often the pending rollup deltas are folded into the rollups at most: what dashboards
    /// lag by at most. Longer folds fewer times the same rollup rows; reports wait for a fold that
    /// started after them (waking the fold) and never lag (docs/ingestion.md, "The fold's cadence").
    public var rollupFoldMilliseconds = 10_000
    /// Events stored by this collector since the last fold started that start the next fold
    /// before `rollupFoldMilliseconds` ends: at a high rate it bounds a fold's backlog, and the
    /// wait of a report that wakes it, instead of the interval (docs/ingestion.md, "The fold's
    /// cadence").
    public var rollupFoldEvents = 200_000
    /// Connections the background fold runs on: 3 runs its shares at once (the engagement deltas
    /// beside each of attribution's two parts, the holdouts with part 0), so its tail after a
    /// burst uses both cores; 2 keeps attribution whole beside the deltas; 1 runs them in turn
    /// in one transaction (docs/ingestion.md, "The fold's shares").
    public var rollupFoldConnections = 3
    /// The most `rollupFoldConnections` do anything: the deltas' and one per part of
    /// attribution's queue (migration 0328).
    public static let maxRollupFoldConnections = FoldShares.maxConnections
    /// The C allocator's arenas, set once by `tapwire serve` before its threads
    /// start (docs/ingestion.md, "The collector's memory").
    public var allocator = AllocatorSettings()
    /// How long a report (or another exact reader) waits for the background fold before it folds
    /// on its own connection (docs/reports.md, "A report in the collector shares the fold").
    public var readFoldWaitMilliseconds = 30_000
    /// The least time from a fold's end to the start of a fold a report (or another exact reader)
    /// wakes: reports back to back share one fold per rest instead of each adding a fold to
    /// ingestion's; a report waits up to this much longer (docs/reports.md, "A report in the
    /// collector shares the fold", which argues the default).
    public var readFoldRestMilliseconds = 500
    /// Threads (and connections) for key lookups, manifests and reports.
    public var readerThreads = 4
    /// How long a resolved key is trusted before it is looked up again.
    public var keyCacheSeconds = 30
    public var logLevel: LogLevel = .info
    /// Slack-compatible webhook for new findings of every family (TAPWIRE_ALERT_WEBHOOK_URL).
    public var alertWebhookURL: String?
    /// Whether this collector runs the findings monitor (TAPWIRE_FINDINGS_MONITOR). Off for a
    /// collector that only ingests while another scans, and for tests that must find the fold's
    /// queues as they wrote them: each scan folds every pending row first (docs/alerting.md).
    public var findingsMonitor = true
    /// How the findings monitor scans, and the webhook filters and retries (TAPWIRE_ALERT_MIN_SEVERITY).
    public var alertOptions = FindingMonitor.Options()
    /// The release-regression check's settings (TAPWIRE_REGRESSION_MIN_DROP,
    /// TAPWIRE_REGRESSION_HORIZON_DAYS); `problem` is checked where they are read.
    public var regression = RegressionConfiguration.default

    public init(databaseURL: String) { self.databaseURL = databaseURL }
}
