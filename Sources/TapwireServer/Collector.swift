import Foundation
import TapwireCore
import TapwireLifecycle
import TapwireReport
import TapwireStore

/// The collector, put together: its long-lived parts as services in one group (the database
/// readers, the rollup fold, the group-commit writers, the findings monitor, the HTTP server,
/// started in that order and drained in reverse), and its routes, each made with the small
/// protocols its handlers need. `start` and `stop` bracket everything.
public final class Collector: Sendable {
    public let configuration: CollectorConfiguration
    public let metrics: MetricsRegistry
    /// Every route it serves (`CollectorRoutes`), `extraRoutes` included.
    public let routes: [Route]
    private let committer: GroupCommitter
    private let http: HTTPServer
    private let services: ServiceGroup
    private let logger: Logger

    /// Serves `CollectorRoutes.all`; `extraRoutes` are served next to them (tests add probes).
    public init(configuration: CollectorConfiguration, logger: Logger, extraRoutes: [Route] = []) {
        self.configuration = configuration
        let metrics = MetricsRegistry()
        CollectorMetrics.declare(in: metrics)
        // Connections the server closed while they sat idle, replaced before their next use:
        // logged and counted by connection (docs/deployment.md, "The server's timeouts").
        let watch = IdleConnectionWatch(logger: logger) { connection in
            metrics.increment(CollectorMetrics.databaseConnectionsReplaced, [connection])
        }
        // The collector's exact readers wait for this fold instead of folding themselves: each
        // request or monitor scan takes its ticket (`folder.folds.readFold()`) as it arrives.
        let folder = RollupFolder(databaseURL: configuration.databaseURL, intervalSeconds: Double(configuration.rollupFoldMilliseconds) / 1000,
                                  eventsPerFold: configuration.rollupFoldEvents, connections: configuration.rollupFoldConnections,
                                  readerWaitSeconds: Double(configuration.readFoldWaitMilliseconds) / 1000,
                                  readerRestSeconds: Double(configuration.readFoldRestMilliseconds) / 1000, logger: logger, watch: watch,
                                  onReaderWait: { outcome, seconds in
                                      metrics.increment(CollectorMetrics.readFoldWaits, [outcome])
                                      metrics.observe(CollectorMetrics.readFoldWaitSeconds, [], seconds)
                                  }) { rows, seconds in
            metrics.observe(CollectorMetrics.rollupFoldSeconds, [], seconds)
            metrics.increment(CollectorMetrics.rollupDeltasFolded, [], by: Double(rows))
        }
        let committer = GroupCommitter(
            databaseURL: configuration.databaseURL,
            options: .init(writers: configuration.writers, policy: configuration.groupCommit),
            logger: logger,
            watch: watch,
            onCommit: { stats in
                metrics.observe(CollectorMetrics.batchSeconds, [], stats.seconds)
                metrics.observe(CollectorMetrics.commitEvents, [], Double(stats.events))
                folder.stored(events: stats.stored)
            },
            onDatabaseError: { error in metrics.increment(CollectorMetrics.databaseErrors, [error.code.rawValue]) })
        let database = DatabaseExecutor(databaseURL: configuration.databaseURL, threads: configuration.readerThreads, watch: watch)
        // One cache of decoded manifests for the monitor's scans, the findings requests, the
        // reports and the mismatch counters: each distinct manifest is decoded once, not at every read.
        let manifestCache = ManifestCache()
        let findings = FindingsConfiguration(mismatchLookbackSeconds: configuration.alertOptions.lookbackSeconds,
                                             regression: configuration.regression, manifestCache: manifestCache)
        let folds = folder.folds
        let readFold: @Sendable () -> any ReadFold = { folds.readFold() }
        let monitor = FindingMonitor(databaseURL: configuration.databaseURL, options: configuration.alertOptions,
                                     families: { fold in
                                         var scan = findings
                                         scan.fold = fold
                                         return FindingFamilies.all(scan)
                                     }, readFold: readFold, webhookURL: configuration.alertWebhookURL,
                                     metrics: metrics, logger: logger, watch: watch)

        let handlers = HandlerExecutor(threads: configuration.http.threads)
        let manifests = DatabaseManifests(database: database, manifestCache: manifestCache)
        let ingest = IngestRoutes(events: committer, manifests: manifests,
                                  rateLimiter: RateLimiter(eventsPerSecond: configuration.rateLimitPerSecond),
                                  observers: [IngestMetrics(metrics: metrics),
                                              MismatchMetrics(manifests: manifests, metrics: metrics, executor: handlers)],
                                  limits: configuration.limits)
        let health = HealthRoutes(readiness: DatabaseReadiness(database: database, committer: committer), metrics: metrics)
        routes = CollectorRoutes.all(ingest: ingest, health: health,
                                     findings: DatabaseFindings(database: database, configuration: findings, readFold: readFold, logger: logger),
                                     reports: DatabaseReports(database: database, regression: configuration.regression, readFold: readFold,
                                                              manifestCache: manifestCache, logger: logger),
                                     devices: DeviceRoutes(devices: DatabaseDevices(database: database), logger: logger, limits: configuration.limits))
            + extraRoutes
        let handler = CollectorHandler(routes: routes, keys: KeyCache(ttlSeconds: configuration.keyCacheSeconds),
                                       resolver: DatabaseKeys(database: database), metrics: metrics, logger: logger, executor: handlers)
        let http = HTTPServer(handler: handler, options: configuration.http, logger: logger)
        metrics.gauge(CollectorMetrics.queueDepth, help: "Events waiting for a group commit.") { Double(committer.queuedEvents) }
        metrics.gauge(CollectorMetrics.readFoldWaiting, help: "Exact readers (reports, findings, monitor scans) waiting for the background fold now.") {
            Double(folds.waitingReaders)
        }
        metrics.gauge(CollectorMetrics.connections, help: "Open HTTP connections.") { Double(http.currentConnections) }
        metrics.gauge(CollectorMetrics.bufferedBodyBytes, help: "Bytes of request bodies held decoded (bounded; past it 503).") {
            Double(http.bufferedBodyBytes)
        }
        // The fold starts before the writers so that it drains after them: its last fold takes
        // their last commits. The HTTP server starts last and drains first, while the handlers'
        // threads, the writers and the readers still answer what it admitted.
        let scanning: [any Service] = configuration.findingsMonitor ? [monitor] : []
        services = ServiceGroup([database, folder, committer] + scanning + [handlers, http], logger: logger)
        self.metrics = metrics
        self.committer = committer
        self.http = http
        self.logger = logger
    }

    /// The port the server listens on (after `start`).
    public var port: Int { http.port }

    /// Events waiting for a group commit.
    public var queuedEvents: Int { committer.queuedEvents }

    /// Starts every part in order; if one cannot start (the port is taken, the webhook's URL is
    /// refused), those started are stopped and its error thrown.
    public func start() throws {
        try services.start()
        logger.info("listening", ["host": .string(configuration.http.host), "port": .of(http.port)])
    }

    /// Graceful stop: no new connections or requests, every admitted request answered, every
    /// queued batch committed, then every part stopped in reverse order.
    public func stop() {
        services.shutdown()
    }
}
