import TapwireCore
import TapwireStore

/// One endpoint: who may call it, what body it takes, and what it does.
public struct Route: Sendable {
    public enum Access: Sendable, Equatable {
        /// No key (health, metrics, the API document).
        case open
        /// The app's write key (it ships inside apps: it can only post).
        case write
        /// The app's read key (reports).
        case read
    }

    public var method: String
    public var path: String
    public var access: Access
    /// nil: the route takes no body.
    public var body: BodyPolicy?
    public var handle: @Sendable (RouteRequest) -> Void

    public init(_ method: String, _ path: String, access: Access, body: BodyPolicy? = nil,
                handle: @escaping @Sendable (RouteRequest) -> Void) {
        self.method = method
        self.path = path
        self.access = access
        self.body = body
        self.handle = handle
    }
}

/// What a route handler gets: the request, the authenticated app (for keyed routes) and the
/// collector's shared services. `respond` must be called exactly once, from any thread.
public struct RouteRequest: Sendable {
    public let request: HTTPRequest
    public let identity: KeyIdentity?
    public let services: CollectorServices
    public let respond: @Sendable (HTTPResponse) -> Void

    public func fail(_ error: APIError) { respond(.error(error)) }

    /// For read routes that name an app (`?app=NAME`): a read key sees only its own app.
    public func requireOwnApp() -> Bool {
        guard let identity else { return false }
        if let named = request.query["app"], named != identity.appName {
            fail(APIError(.forbidden, "this read key belongs to another app"))
            return false
        }
        return true
    }
}

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

/// Exact-match routing on (method, path); HEAD is served as GET.
struct Router: Sendable {
    private var routes: [String: [String: Route]] = [:]

    init(_ list: [Route]) {
        for route in list { routes[route.path, default: [:]][route.method] = route }
    }

    enum Match {
        case found(Route)
        case notFound
        case methodNotAllowed(allow: String)
    }

    func match(method: String, path: String) -> Match {
        guard let byMethod = routes[path] else { return .notFound }
        if let route = byMethod[method] ?? (method == "HEAD" ? byMethod["GET"] : nil) { return .found(route) }
        return .methodNotAllowed(allow: byMethod.keys.sorted().joined(separator: ", "))
    }

    /// The label of a request that matched no route, so label values stay bounded.
    static let unmatched = "unmatched"
}
