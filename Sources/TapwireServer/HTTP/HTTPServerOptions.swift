// The HTTP server's settings (read once, with the rest of the collector's configuration) and its error.

public struct HTTPServerOptions: Sendable, Equatable {
    public var host = "127.0.0.1"
    /// 0 picks a free port (see `HTTPServer.port` after `start`).
    public var port = 8080
    public var threads = 2
    public var connectionLimit = 1024
    /// Loopback load tests share one IP; deployments behind a proxy see the proxy's.
    public var perIPConnectionLimit = 128
    /// An idle keep-alive connection is closed after this. It is also the deadline for a request's
    /// headers, counted from when the connection opened or last answered, however slowly the
    /// bytes trickle in (libmicrohttpd's own timeout only counts silence, so a client sending a
    /// header byte a second would otherwise hold its connection forever: slowloris).
    public var idleTimeoutSeconds = 30
    /// A body upload that makes no progress for this long gets 408 and the connection is closed.
    public var stalledUploadSeconds = 10
    /// A body upload that is still not complete after this long gets 408 (slowloris).
    public var uploadDeadlineSeconds = 60
    /// Memory per connection for headers and buffers; a header flood past it is refused by MHD.
    public var connectionMemoryLimit = 64 * 1024
    /// A request line longer than this, or with more query parameters than `maxQueryParameters`,
    /// gets 414 before libmicrohttpd parses it: past about 1,000 parameters MHD runs out of
    /// connection memory and leaves the request unanswered until the idle timeout.
    public var maxURIBytes = 32 * 1024
    public var maxQueryParameters = 100
    /// Request bodies held decoded at once, over every connection: past it an upload gets 503
    /// `overloaded` (Retry-After) instead of the process growing. Each body may inflate to
    /// 8 MiB, so without this bound 1,024 connections could hold 8 GiB.
    public var maxBufferedBodyBytes = 256 << 20
    /// On shutdown, how long the requests already admitted have to be answered (a batch by its
    /// commit, a report by its reads); a request still unanswered after it gets 503 with
    /// Retry-After. Requests that arrive meanwhile get that 503 at once.
    public var drainSeconds = 30.0
    /// How often the upload watchdog looks at every upload and idle connection. Not a setting:
    /// tests look far more often, so that a look racing a request shows up in a short run.
    var watchdogSweepNanoseconds: UInt64 = 250_000_000

    public init() {}
}
