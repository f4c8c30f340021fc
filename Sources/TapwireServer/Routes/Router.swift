import TapwireCore
import TapwireStore

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
