import TapwireStore

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
