/// The application side of the HTTP server.
public protocol HTTPHandler: Sendable {
    /// Runs on the HTTP thread when the headers are in; must not block.
    func admit(_ head: RequestHead) -> Admission
    /// Called once per finished request (for logs and metrics), with the label admission gave
    /// it (nil when the server refused the head before asking) and the response's annotations.
    func completed(_ head: RequestHead, label: String?, status: Int, annotations: [String: Int], nanoseconds: UInt64)
}
