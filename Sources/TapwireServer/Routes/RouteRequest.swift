import TapwireStore

/// What a handler gets: the request, and the app its key resolved to (nil on open routes).
public struct RouteRequest: Sendable {
    public let request: HTTPRequest
    public let identity: KeyIdentity?

    public init(request: HTTPRequest, identity: KeyIdentity?) {
        self.request = request
        self.identity = identity
    }

    /// The key's app; a keyed route always has one (`CollectorHandler` resolves it first).
    public func app() throws(APIError) -> KeyIdentity {
        guard let identity else { throw APIError(.unauthorized, "missing credentials") }
        return identity
    }

    /// For read routes that name an app (`?app=NAME`): a read key sees only its own app.
    public func ownApp() throws(APIError) -> KeyIdentity {
        let identity = try app()
        if let named = request.query["app"], named != identity.appName { throw APIError(.forbidden, "this read key belongs to another app") }
        return identity
    }
}
