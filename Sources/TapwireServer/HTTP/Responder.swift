/// How an admitted request is answered, decided once when its headers arrive: the route's
/// handler, with what admission learnt (the route, the key) captured, so nothing about the
/// request is matched or parsed a second time.
public struct Responder: Sendable {
    /// The request's name in logs and metrics (its route), from a bounded set.
    public var label: String
    /// Runs on the HTTP thread when the body is in. `respond` may be called now or later, from
    /// any thread, exactly once; until then the connection is suspended, holding no thread.
    public var handle: @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void

    public init(label: String, handle: @escaping @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void) {
        self.label = label
        self.handle = handle
    }
}
