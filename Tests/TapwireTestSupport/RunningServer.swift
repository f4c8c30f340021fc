import TapwireCore
import TapwireLifecycle
import TapwireServer

/// An HTTP server running on its own, as a service group of one (the tests of the driver, with a
/// handler of their own instead of the collector's).
public final class RunningServer: Sendable {
    public let server: HTTPServer
    private let group: ServiceGroup

    public init(_ server: HTTPServer) throws {
        self.server = server
        group = ServiceGroup([server], logger: Logger(label: "test", sink: .memory()))
        try group.start()
    }

    public var port: Int { server.port }
    public var bufferedBodyBytes: Int { server.bufferedBodyBytes }

    /// Drains and stops it.
    public func stop() { group.shutdown() }
}
