/// One endpoint: who may call it, what body it takes, and the handler that answers it. A handler
/// is a function from the request to its response (an `APIError` it throws is answered in the
/// one table of statuses); what it needs it was given as small protocols when its routes were
/// made (`CollectorRoutes`), so route logic runs in tests without a server or a database.
public struct Route: Sendable {
    public enum Access: Sendable, Equatable {
        /// No key (health, metrics, the API document).
        case open
        /// The app's write key (it ships inside apps: it can only post).
        case write
        /// The app's read key (reports).
        case read
        /// The app's admin key (deletions: forgetting a device).
        case admin
    }

    public var method: String
    public var path: String
    public var access: Access
    /// nil: the route takes no body.
    public var body: BodyPolicy?
    /// The response to a request; it never fails (a thrown `APIError` is its response).
    public let handle: @Sendable (RouteRequest) async -> HTTPResponse

    public init(_ method: String, _ path: String, access: Access, body: BodyPolicy? = nil,
                handle: @escaping @Sendable (RouteRequest) async throws(APIError) -> HTTPResponse) {
        self.method = method
        self.path = path
        self.access = access
        self.body = body
        self.handle = { request in
            do throws(APIError) {
                return try await handle(request)
            } catch {
                return .error(error)
            }
        }
    }
}
