
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
