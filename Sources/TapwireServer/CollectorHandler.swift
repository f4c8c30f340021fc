import Foundation
import TapwireCore
import TapwireStore

/// The collector's side of the HTTP server: matches a request's route, reads and checks its key
/// once, resolves the key (cached, else by `KeyResolver`), runs the route's handler and answers
/// with what it returns. One log line and the request metrics per request.
final class CollectorHandler: HTTPHandler {
    private let router: Router
    private let keys: KeyCache
    private let resolver: any KeyResolver
    private let metrics: MetricsRegistry
    private let logger: Logger
    private let executor: HandlerExecutor
    /// Monotonic nanoseconds, for the key cache's expiry.
    private let clock: @Sendable () -> UInt64

    init(routes: [Route], keys: KeyCache, resolver: any KeyResolver, metrics: MetricsRegistry, logger: Logger,
         executor: HandlerExecutor, clock: @escaping @Sendable () -> UInt64 = monotonicNanoseconds) {
        self.executor = executor
        self.clock = clock
        router = Router(routes)
        self.keys = keys
        self.resolver = resolver
        self.metrics = metrics
        self.logger = logger
    }

    /// Matches the route and reads the key once; the responder carries both to the body's arrival.
    func admit(_ head: RequestHead) -> Admission {
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
        guard route.access != .open else {
            return .accept(route.body, Responder(label: route.path) { [executor] request, respond in
                executor.run { respond(await route.handle(RouteRequest(request: request, identity: nil))) }
            })
        }
        guard let key = BasicAuth.key(from: head.header("authorization")) else {
            return .reject(.error(APIError(.unauthorized, head.header("authorization") == nil
                ? "missing credentials: send the app's key as the Basic auth username"
                : "the credentials are not a Tapwire key")), label: route.path)
        }
        if route.access == .write, key.kind != .write {
            return .reject(.error(APIError(.forbidden, "this endpoint takes a write key; a \(key.kind.rawValue) key cannot post")), label: route.path)
        }
        if route.access == .read, key.kind != .read {
            return .reject(.error(APIError(.forbidden, key.kind == .write ? "this endpoint takes a read key; write keys ship in apps and cannot read" : "this endpoint takes a read key; an admin key cannot read")), label: route.path)
        }
        if route.access == .admin, key.kind != .admin {
            return .reject(.error(APIError(.forbidden, "this endpoint takes an admin key (twa_…): `tapwire keys rotate APP --kind admin` makes one")),
                           label: route.path)
        }
        return .accept(route.body, Responder(label: route.path) { [keys, resolver, executor, clock] request, respond in
            executor.run {
                do throws(APIError) {
                    let identity = try await Self.identity(of: key, keys: keys, resolver: resolver, clock: clock)
                    respond(await route.handle(RouteRequest(request: request, identity: identity)))
                } catch {
                    respond(.error(error))
                }
            }
        })
    }

    /// The key's app, from the cache or else the resolver (and then cached, an unknown key too).
    static func identity(of key: APIKey, keys: KeyCache, resolver: any KeyResolver,
                         clock: @Sendable () -> UInt64) async throws(APIError) -> KeyIdentity {
        let identity: KeyIdentity?
        switch keys.lookup(key, now: clock()) {
        case .hit(let cached):
            identity = cached
        case .miss:
            identity = try await resolver.resolve(key)
            keys.store(key, identity: identity, now: clock())
        }
        guard let identity else { throw APIError(.unauthorized, "unknown, revoked or expired key") }
        return identity
    }

    /// One structured line per request: route, status, counts, latency. Never keys or bodies.
    func completed(_ head: RequestHead, label: String?, status: Int, annotations: [String: Int], nanoseconds: UInt64) {
        let route = label ?? Router.unmatched
        let seconds = Double(nanoseconds) / 1e9
        metrics.increment(CollectorMetrics.requests, [route, String(status)])
        metrics.observe(CollectorMetrics.requestSeconds, [route], seconds)
        let level: LogLevel = status >= 500 ? .warning : .info
        guard level >= logger.minimumLevel else { return }
        var fields: [(String, LogValue)] = [("method", .string(FieldRules.truncatedForEcho(head.method, max: 16))), ("route", .string(route)),
                                            ("status", .of(status)), ("latency_ms", .double(seconds * 1000))]
        for key in annotations.keys.sorted() { fields.append((key, .of(annotations[key]!))) }
        logger.log(level, "request", fields)
    }
}
