import Foundation
import Synchronization
import TapwireCore
import TapwireStore

/// The collector: routes, authentication and the lifecycle of its parts (HTTP server, group
/// committer, database threads). `start` and `stop` bracket everything.
public final class Collector: HTTPHandler {
    public let services: CollectorServices
    private let router: Router
    private let keys: KeyCache
    private let server: HTTPServerBox
    private let monitor = Mutex<FindingMonitor?>(nil)
    private let folder: RollupFolder

    /// Serves `CollectorRoutes.all`; `extraRoutes` are served next to them (tests add probes).
    public init(configuration: CollectorConfiguration, logger: Logger, extraRoutes: [Route] = []) {
        let metrics = MetricsRegistry()
        CollectorMetrics.declare(in: metrics)
        MismatchMetrics.declare(in: metrics)
        FindingMetrics.declare(in: metrics)
        let committer = GroupCommitter(
            databaseURL: configuration.databaseURL,
            options: .init(writers: configuration.writers,
                           policy: configuration.groupCommit),
            logger: logger,
            onCommit: { stats in
                metrics.observe(CollectorMetrics.batchSeconds, [], stats.seconds)
                metrics.observe(CollectorMetrics.commitEvents, [], Double(stats.events))
            },
            onDatabaseError: { error in metrics.increment(CollectorMetrics.databaseErrors, [error.code.rawValue]) })
        folder = RollupFolder(databaseURL: configuration.databaseURL, intervalSeconds: Double(configuration.rollupFoldMilliseconds) / 1000,
                              logger: logger) { rows, seconds in
            metrics.observe(CollectorMetrics.rollupFoldSeconds, [], seconds)
            metrics.increment(CollectorMetrics.rollupDeltasFolded, [], by: Double(rows))
        }
        let database = DatabaseExecutor(databaseURL: configuration.databaseURL, threads: configuration.readerThreads)
        services = CollectorServices(configuration: configuration, database: database, committer: committer, metrics: metrics,
                                     logger: logger, rateLimiter: RateLimiter(eventsPerSecond: configuration.rateLimitPerSecond),
                                     mismatchMetrics: MismatchMetrics())
        router = Router(CollectorRoutes.all(limits: configuration.limits) + extraRoutes)
        keys = KeyCache(ttlSeconds: configuration.keyCacheSeconds)
        server = HTTPServerBox()
        metrics.gauge(CollectorMetrics.queueDepth, help: "Events waiting for a group commit.") { Double(committer.queuedEvents) }
    }

    /// The port the server listens on (after `start`).
    public var port: Int { server.server?.port ?? 0 }

    public func start() throws {
        services.database.start()
        services.committer.start()
        folder.start()
        try monitor.withLock { $0 = try FindingMonitor.start(services) }
        let http = HTTPServer(handler: self, options: services.configuration.http, logger: services.logger)
        try http.start()
        server.server = http
        services.metrics.gauge(CollectorMetrics.connections, help: "Open HTTP connections.") { Double(http.currentConnections) }
        services.metrics.gauge(CollectorMetrics.bufferedBodyBytes, help: "Bytes of request bodies held decoded (bounded; past it 503).") {
            Double(http.bufferedBodyBytes)
        }
        services.logger.info("listening", ["host": .string(services.configuration.http.host), "port": .of(http.port)])
    }

    /// Graceful stop: no new connections, every queued batch committed and answered, then close.
    public func stop() {
        server.server?.quiesce()
        monitor.withLock { current in defer { current = nil }; return current }?.stop()
        services.committer.shutdown()
        folder.stop()
        services.database.shutdown()
        // Let the last responses leave before the sockets close.
        Thread.sleep(forTimeInterval: 0.1)
        server.server?.stop()
        server.server = nil
    }

    // MARK: HTTPHandler

    /// Matches the route and reads the key once; the responder carries both to the body's arrival.
    public func admit(_ head: RequestHead) -> Admission {
        let route: Route
        switch router.match(method: head.method, path: head.path) {
        case .notFound:
            return .reject(.error(APIError(.notFound, "no endpoint \(FieldRules.truncatedForEcho(head.path, max: 100)); see /openapi.json")),
                           label: Router.unmatched)
        case .methodNotAllowed(let allow):
            return .reject(.error(APIError(.methodNotAllowed, "\(FieldRules.truncatedForEcho(head.method, max: 16)) is not allowed here; use \(allow)", allow: allow)),
                           label: Router.unmatched)
        case .found(let found):
            route = found
        }
        let services = self.services
        guard route.access != .open else {
            return .accept(route.body, Responder(label: route.path) { request, respond in
                route.handle(RouteRequest(request: request, identity: nil, services: services, respond: respond))
            })
        }
        guard let key = BasicAuth.key(from: head.header("authorization")) else {
            return .reject(.error(APIError(.unauthorized, head.header("authorization") == nil
                ? "missing credentials: send the app's key as the Basic auth username"
                : "the credentials are not a Tapwire key")), label: route.path)
        }
        if route.access == .write, key.kind != .write {
            return .reject(.error(APIError(.forbidden, "this endpoint takes a write key; a read key cannot post")), label: route.path)
        }
        if route.access == .read, key.kind != .read {
            return .reject(.error(APIError(.forbidden, "this endpoint takes a read key; write keys ship in apps and cannot read")), label: route.path)
        }
        return .accept(route.body, Responder(label: route.path) { [keys] request, respond in
            Self.authorize(key, keys: keys, services: services) { identity in
                route.handle(RouteRequest(request: request, identity: identity, services: services, respond: respond))
            } refuse: { respond(.error($0)) }
        })
    }

    /// Resolves the key (from the cache, else the database) and proceeds with its identity. After
    /// a lookup, the request goes on off the database thread: decoding a body of up to 8 MiB there
    /// would hold a reader connection that key lookups, manifests and reports wait for.
    static func authorize(_ key: APIKey, keys: KeyCache, services: CollectorServices,
                          proceed: @escaping @Sendable (KeyIdentity) -> Void, refuse: @escaping @Sendable (APIError) -> Void) {
        let resolved: @Sendable (KeyIdentity?) -> Void = { identity in
            guard let identity else { return refuse(APIError(.unauthorized, "unknown, revoked or expired key")) }
            proceed(identity)
        }
        switch keys.lookup(key, now: monotonicNanoseconds()) {
        case .hit(let identity):
            resolved(identity)
        case .miss:
            services.database.submit({ (connection) throws(DatabaseError) in try AppStore().resolve(key, on: connection) }) { result in
                switch result {
                case .success(let identity):
                    keys.store(key, identity: identity, now: monotonicNanoseconds())
                    DispatchQueue.global(qos: .userInitiated).async { resolved(identity) }
                case .failure(let error):
                    // A key that cannot be looked up is not refused as unknown: the client retries.
                    refuse(APIError(error, doing: "looking up the key") { _ in
                        APIError(.databaseUnavailable, "the database is unavailable; retry later", retryAfterSeconds: 1)
                    })
                }
            }
        }
    }

    /// One structured line per request: route, status, counts, latency. Never keys or bodies.
    public func completed(_ head: RequestHead, label: String?, status: Int, annotations: [String: Int], nanoseconds: UInt64) {
        let route = label ?? Router.unmatched
        let seconds = Double(nanoseconds) / 1e9
        services.metrics.increment(CollectorMetrics.requests, [route, String(status)])
        services.metrics.observe(CollectorMetrics.requestSeconds, [route], seconds)
        let level: LogLevel = status >= 500 ? .warning : .info
        guard level >= services.logger.minimumLevel else { return }
        var fields: [(String, LogValue)] = [("method", .string(FieldRules.truncatedForEcho(head.method, max: 16))), ("route", .string(route)), ("status", .of(status)),
                                            ("latency_ms", .double(seconds * 1000))]
        for key in annotations.keys.sorted() { fields.append((key, .of(annotations[key]!))) }
        services.logger.log(level, "request", fields)
    }
}

/// The HTTP server is made in `start` (it needs `self` as its handler); this holds it.
final class HTTPServerBox: Sendable {
    private let value = Mutex<HTTPServer?>(nil)
    var server: HTTPServer? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
