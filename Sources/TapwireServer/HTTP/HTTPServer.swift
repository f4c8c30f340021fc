import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization
import TapwireCore
import TapwireLifecycle
#if canImport(Glibc)
import Glibc
#endif

// The libmicrohttpd driver. Every MHD_* call lives in this file, and no pointer it handles
// leaves it. MHD runs an epoll thread pool; our callbacks are plain nonisolated functions (a
// closure in main.swift would be main-actor isolated and trap when MHD calls it from its own
// thread). What a request does next is decided by `RequestLifecycle` (RequestLifecycle.swift);
// the callbacks feed it events and perform its actions. Bodies are read by `BodyReader`
// (BodyReader.swift), slow uploads answered by `UploadWatchdog`.

public final class HTTPServer: Service {
    public let name = "http"
    let handler: any HTTPHandler
    public let options: HTTPServerOptions
    /// Why a request ended without its answer reaching the client, and libmicrohttpd's own
    /// messages (connections refused at the limits, failed sends), go here.
    let logger: Logger
    private let daemon = Mutex<UInt>(0)
    private let boundPort = Atomic<Int>(0)
    let watchdog: UploadWatchdog
    let bodyBudget: BodyBudget
    private let stopping = ShutdownSignal()
    /// Every request from its head to libmicrohttpd's completion notice: what a drain waits for.
    private let requests = Mutex<[ObjectIdentifier: RequestContext]>([:])
    private let draining = Atomic<Bool>(false)
    /// Signalled when the last request completes while draining.
    private let drained = DispatchSemaphore(value: 0)

    public init(handler: any HTTPHandler, options: HTTPServerOptions, logger: Logger = Logger(label: "http")) {
        self.handler = handler
        self.options = options
        self.logger = logger
        self.bodyBudget = BodyBudget(limit: options.maxBufferedBodyBytes)
        self.watchdog = UploadWatchdog(stalledNanoseconds: UInt64(options.stalledUploadSeconds) * 1_000_000_000,
                                       deadlineNanoseconds: UInt64(options.uploadDeadlineSeconds) * 1_000_000_000,
                                       headerDeadlineNanoseconds: UInt64(options.idleTimeoutSeconds) * 1_000_000_000,
                                       sweepInterval: options.watchdogSweepNanoseconds, logger: logger)
    }

    /// The port actually bound (useful when options.port is 0).
    public var port: Int { boundPort.load(ordering: .acquiring) }

    /// Listens until shut down, then drains: a new connection is closed unread and no new
    /// request admitted (503, Retry-After, the connection closed), every request already admitted is
    /// answered (by the services that start before this one and stop after it) within
    /// `drainSeconds`, those still waiting then get 503, and the sockets close.
    public func run(ready: @escaping @Sendable () -> Void) throws {
        try listen()
        ready()
        stopping.wait()
        drain()
    }

    public func shutdown() { stopping.raise() }

    private func listen() throws(HTTPServerError) {
        guard let address = SocketAddress(host: options.host, port: options.port) else {
            throw HTTPServerError(message: "cannot listen on host \(options.host): give an IPv4 or IPv6 address such as 127.0.0.1, 0.0.0.0 or ::1")
        }
        var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
                           | MHD_USE_ERROR_LOG.rawValue)
        if address.isIPv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let cls = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer? = address.withSockaddr { sockaddrPointer in
            var settings = tapwire_mhd_options(
                flags: flags, address: sockaddrPointer, thread_pool_size: UInt32(max(1, options.threads)),
                connection_limit: UInt32(options.connectionLimit), per_ip_connection_limit: UInt32(options.perIPConnectionLimit),
                connection_timeout_seconds: UInt32(options.idleTimeoutSeconds), connection_memory_limit: options.connectionMemoryLimit,
                listen_backlog: 511, logger: tapwireLibraryMessage, logger_cls: cls)
            return tapwire_mhd_start(&settings, tapwireAcceptPolicy, cls, tapwireAccessHandler, cls, tapwireRequestCompleted, cls,
                                     tapwireConnectionNotice, cls, tapwireRequestLine, cls)
        }
        guard let started else {
            throw HTTPServerError(message: "cannot listen on \(options.host):\(options.port): the port is in use or the address is not local (set --port or TAPWIRE_PORT)")
        }
        daemon.withLock { $0 = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(started))) }
        boundPort.store(Int(tapwire_mhd_bound_port(started)), ordering: .releasing)
        watchdog.start()
    }

    /// The answer to a request that arrives, or is still unanswered, while the server drains.
    static let shuttingDown = APIError(.databaseUnavailable, "the collector is shutting down; nothing was stored, retry",
                                       retryAfterSeconds: 1)

    private func drain() {
        let raw = daemon.withLock { $0 }
        guard raw != 0, let pointer = OpaquePointer(bitPattern: raw) else { return }
        // Not MHD_quiesce_daemon: with epoll workers, libmicrohttpd 0.9.75 aborts the process when
        // a worker removes the listening socket from its epoll set at the same moment
        // (docs/reliability.md, "Stopping without quiescing"). Draining instead makes the accept
        // policy close each new connection at once, and MHD_stop_daemon closes the listening socket.
        draining.store(true, ordering: .releasing)
        if !requests.withLock({ $0.isEmpty }), drained.wait(timeout: .now() + options.drainSeconds) == .timedOut {
            // Answered now; a suspended connection resumes at once (MHD forbids stopping with one
            // suspended), and the answers get a moment to be sent.
            for context in requests.withLock({ Array($0.values) }) { context.deliver(.error(Self.shuttingDown)) }
            _ = drained.wait(timeout: .now() + 2)
        }
        daemon.withLock { $0 = 0 }
        watchdog.stop()
        MHD_stop_daemon(pointer)
    }

    /// False once draining: a connection accepted then is closed before anything is read.
    fileprivate var acceptsConnections: Bool { !draining.load(ordering: .acquiring) }

    /// A request's head arrived; true when the server is draining (it is then refused).
    fileprivate func opened(_ context: RequestContext) -> Bool {
        requests.withLock { $0[ObjectIdentifier(context)] = context }
        return draining.load(ordering: .acquiring)
    }

    /// A request completed (answered, abandoned or timed out).
    fileprivate func closed(_ context: RequestContext) {
        let last = requests.withLock { all -> Bool in
            all[ObjectIdentifier(context)] = nil
            return all.isEmpty
        }
        if last, draining.load(ordering: .acquiring) { drained.signal() }
    }

    /// Bytes of request bodies held decoded right now (for tests and metrics).
    public var bufferedBodyBytes: Int { bodyBudget.used }

    public var currentConnections: Int {
        let raw = daemon.withLock { $0 }
        guard raw != 0, let pointer = OpaquePointer(bitPattern: raw) else { return 0 }
        return Int(tapwire_mhd_current_connections(pointer))
    }
}

/// A MHD connection pointer that crosses threads, inside the resume closure this file gives each
/// `RequestContext`. @unchecked Sendable is safe because the only call made with it off the MHD
/// thread is MHD_resume_connection, which libmicrohttpd documents
/// as callable from any thread when MHD_ALLOW_SUSPEND_RESUME is set, and it is made only while
/// the request is suspended, before the completion callback can run (MHD does not complete
/// suspended connections; the server is never stopped with one).
private struct ConnectionRef: @unchecked Sendable {
    let pointer: OpaquePointer
}

// MARK: - MHD callbacks (plain functions: they run on MHD's threads)

private func tapwireAcceptPolicy(cls: UnsafeMutableRawPointer?, address: UnsafePointer<sockaddr>?, length: socklen_t) -> MHD_Result {
    guard let cls else { return .YES }
    return Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().acceptsConnections ? .YES : .NO
}

private func openConnection(_ connection: OpaquePointer) -> OpenConnection? {
    tapwire_mhd_socket_context(connection).map { Unmanaged<OpenConnection>.fromOpaque($0).takeUnretainedValue() }
}

private func tapwireConnectionNotice(cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
                                     socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                     code: MHD_ConnectionNotificationCode) {
    guard let cls, let connection, let socketContext else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if code == .CONNECTION_NOTIFY_STARTED {
        let fd = tapwire_mhd_connection_fd(connection)
        let entry = OpenConnection(socket: fd >= 0 ? dup(fd) : -1, now: monotonicNanoseconds())
        socketContext.pointee = Unmanaged.passRetained(entry).toOpaque()
        server.watchdog.opened(entry)
    } else if let raw = socketContext.pointee {
        socketContext.pointee = nil
        let entry = Unmanaged<OpenConnection>.fromOpaque(raw).takeRetainedValue()
        server.watchdog.closed(entry)
        entry.close()
    }
}

/// The request line, before MHD parses its query: too long or too many parameters gets a JSON
/// 414 written on the socket (MHD has written nothing for this request yet) and the connection
/// is shut, so nothing of the request is handled.
private func tapwireRequestLine(cls: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?) -> UnsafeMutableRawPointer? {
    guard let cls, let uri, let connection, let entry = openConnection(connection) else { return nil }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let length = strlen(uri)
    var parameters = 0
    if let query = strchr(uri, Int32(UInt8(ascii: "?"))) {
        parameters = 1
        var p = query
        while p.pointee != 0 {
            if p.pointee == CChar(UInt8(ascii: "&")) { parameters += 1 }
            p += 1
        }
    }
    let limits = server.options
    guard length > limits.maxURIBytes || parameters > limits.maxQueryParameters else { return nil }
    let error = APIError(.uriTooLong, length > limits.maxURIBytes
        ? "the URL is \(length) bytes; at most \(limits.maxURIBytes) are allowed"
        : "the URL has \(parameters) query parameters; at most \(limits.maxQueryParameters) are allowed")
    entry.state.withLock { c in
        c.refused = true
        c.waitingSince = nil
        guard c.socket >= 0 else { return }
        UploadWatchdog.writeRaw(.error(error), to: c.socket)
        shutdown(c.socket, Int32(SHUT_RDWR))
    }
    return nil
}

private func tapwireAccessHandler(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
    version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let requestContext, let uploadDataSize else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()

    guard let existing = requestContext.pointee else {
        // Headers complete: the header deadline stops, unless the request line was refused.
        var requestStart: UInt64?
        if let entry = openConnection(connection) {
            let refused = entry.state.withLock { c -> Bool in
                c.waitingSince = nil
                requestStart = c.nextRequestStart
                return c.refused
            }
            if refused { return .NO }
        }
        let headers = collectValues(connection, kind: .HEADER_KIND, lowercaseKeys: true, keepingEvery: RequestFraming.fieldNames)
        let head = RequestHead(method: url.flatMap { _ in method.map { String(cString: $0) } } ?? "GET",
                               path: url.map { String(cString: $0) } ?? "/",
                               query: collectValues(connection, kind: .GET_ARGUMENT_KIND, lowercaseKeys: false).values,
                               headers: headers.values,
                               framing: RequestFraming(contentLength: headers.every["content-length"] ?? [],
                                                       transferEncoding: headers.every["transfer-encoding"] ?? []))
        let ref = ConnectionRef(pointer: connection)
        let context = RequestContext(head: head, now: monotonicNanoseconds()) { MHD_resume_connection(ref.pointer) }
        let headBytes = UInt64(tapwire_mhd_request_header_size(connection))
        context.state.withLock { s in
            s.wireEnd = wireEnd(start: requestStart, headBytes: headBytes, head: head)
        }
        requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        if server.opened(context) {
            var response = HTTPResponse.error(HTTPServer.shuttingDown)
            response.headers.append(("Connection", "close"))
            return perform(context.state.withLock { $0.lifecycle.headRefused(response) }, context, server: server, connection: connection)
        }
        return begin(context, server: server, connection: connection)
    }
    let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()

    if uploadDataSize.pointee > 0 {
        // Copied out of MHD's buffer, which is only valid during this call.
        let chunk = Array(UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee))
        uploadDataSize.pointee = 0
        let action = context.state.withLock { $0.receive(chunk, now: monotonicNanoseconds()) }
        return perform(action, context, server: server, connection: connection)
    }
    // The body has ended, or the handler answered and MHD resumed us.
    let (action, request) = context.state.withLock { $0.endBody(head: context.head) }
    if let request { return dispatch(request, context, server: server, connection: connection) }
    return perform(action, context, server: server, connection: connection)
}

/// The headers are in: admit or refuse before reading any of the body.
private func begin(_ context: RequestContext, server: HTTPServer, connection: OpaquePointer) -> MHD_Result {
    let head = context.head
    func refuse(_ response: HTTPResponse) -> MHD_Result {
        perform(context.state.withLock { $0.lifecycle.headRefused(response) }, context, server: server, connection: connection)
    }
    // Ambiguous framing first, whatever the route: where this request's body ends, and so where
    // the next request starts, is unknowable, so the connection is closed after the answer
    // (RFC 9112 §6.3).
    if let problem = head.framing.problem {
        var response = HTTPResponse.error(APIError(.badRequest, problem))
        response.headers.append(("Connection", "close"))
        return refuse(response)
    }
    switch server.handler.admit(head) {
    case .reject(let response, let label):
        context.state.withLock { $0.label = label }
        return refuse(response)
    case .accept(let policy, let responder):
        context.state.withLock { s in
            s.responder = responder
            s.label = responder.label
        }
        guard let policy else { return .YES } // a body on a route that takes none is read and ignored
        let encoding: BodyReader.Encoding
        do throws(APIError) {
            encoding = try BodyReader.encoding(of: head, under: policy)
        } catch {
            return refuse(.error(error))
        }
        let hasBody = head.announcesBody
        context.state.withLock { s in
            s.lifecycle.bodyAccepted()
            s.body = BodyReader(policy: policy, encoding: encoding, budget: server.bodyBudget)
            if hasBody {
                let fd = tapwire_mhd_connection_fd(connection)
                if fd >= 0 { s.watchdogSocket = dup(fd) }
                // The clock starts now, after `admit`: time the collector spent on the head is not the client's.
                s.account = server.watchdog.account(now: monotonicNanoseconds(), wireEnd: s.wireEnd)
            }
        }
        if hasBody { server.watchdog.watch(context) }
        return .YES
    }
}

/// Performs what the request's life cycle decided.
private func perform(_ action: RequestLifecycle.Action, _ context: RequestContext, server: HTTPServer,
                     connection: OpaquePointer) -> MHD_Result {
    switch action {
    case .proceed, .feed, .discard, .decode, .dispatch, .suspend, .resume:
        return .YES
    case .close:
        return .NO
    case .respond(let response):
        server.watchdog.forget(context)
        return queue(response, connection: connection)
    }
}

/// The body is decoded: the handler takes the request, and the connection is suspended until it
/// answers unless it already has.
private func dispatch(_ request: HTTPRequest, _ context: RequestContext, server: HTTPServer, connection: OpaquePointer) -> MHD_Result {
    server.watchdog.forget(context)
    if let responder = context.state.withLock({ $0.responder }) {
        responder.handle(request) { response in context.deliver(response) }
    } else {
        // Only an admitted request reaches here; should the state say otherwise, it still gets an answer.
        context.deliver(.error(APIError(.internalError, "the request was not admitted")))
    }
    let action = context.state.withLock { s in
        let action = s.lifecycle.handlerReturned()
        // Under the lock, so that the handler's answer (`deliver`) cannot resume before this suspend.
        if action == .suspend { MHD_suspend_connection(connection) }
        return action
    }
    return perform(action, context, server: server, connection: connection)
}

private func queue(_ response: HTTPResponse, connection: OpaquePointer) -> MHD_Result {
    let created: OpaquePointer? = response.body.withUnsafeBytes { raw in
        MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers {
        _ = MHD_add_response_header(created, name, value)
    }
    return MHD_queue_response(connection, UInt32(response.status), created)
}

private func tapwireRequestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    reason: MHD_RequestTerminationCode
) {
    // Answered (or abandoned): the deadline for the next request's headers starts now, and the
    // next request starts where this one ended (unknown if we never saw this one's head).
    let ended = requestContext?.pointee.map { raw in
        Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue().state.withLock { $0.wireEnd }
    } ?? nil
    var closedByWatchdog = false
    if let connection, let entry = openConnection(connection) {
        entry.state.withLock { c in
            c.waitingSince = c.refused ? nil : monotonicNanoseconds()
            c.nextRequestStart = ended
            closedByWatchdog = c.closedByWatchdog
        }
    }
    guard let cls, let requestContext, let raw = requestContext.pointee else { return }
    requestContext.pointee = nil
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    server.watchdog.forget(context)
    defer { server.closed(context) }
    let termination = RequestLifecycle.Termination(reason)
    let (outcome, label) = context.state.withLock { s in (s.complete(termination, budget: server.bodyBudget), s.label) }
    let nanoseconds = monotonicNanoseconds() &- context.startedAt
    if let phase = outcome.unansweredIn {
        server.logUnanswered(label: label, status: outcome.status, phase: phase, termination: termination,
                             closedByWatchdog: closedByWatchdog, nanoseconds: nanoseconds)
    }
    server.handler.completed(context.head, label: label, status: outcome.status, annotations: outcome.annotations,
                             nanoseconds: nanoseconds)
}

extension RequestLifecycle.Termination {
    init(_ code: MHD_RequestTerminationCode) {
        switch code {
        case .REQUEST_TERMINATED_COMPLETED_OK: self = .completed
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: self = .idleTimeout
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: self = .shutdown
        case .REQUEST_TERMINATED_READ_ERROR: self = .readError
        case .REQUEST_TERMINATED_CLIENT_ABORT: self = .clientClosed
        default: self = .connectionError
        }
    }
}

extension HTTPServer {
    /// One line for a request whose client got no whole answer, saying why: a warning when the
    /// collector ended it, info when the client went away. Only the route, never the URL.
    func logUnanswered(label: String?, status: Int, phase: RequestLifecycle.Phase, termination: RequestLifecycle.Termination,
                       closedByWatchdog: Bool, nanoseconds: UInt64) {
        let why: String
        switch termination {
        case _ where closedByWatchdog:
            why = "the upload watchdog closed the connection: its next request's headers were overdue"
        case .completed: why = "libmicrohttpd completed the request without the collector's answer"
        case .connectionError: why = "the connection failed before the answer was sent (libmicrohttpd's message says how)"
        case .idleTimeout: why = "no bytes moved for the idle timeout (\(options.idleTimeoutSeconds) s), so libmicrohttpd closed the connection"
        case .shutdown: why = "the collector stopped"
        case .readError: why = "the client reset the connection"
        case .clientClosed: why = "the client closed the connection"
        }
        var fields: [(String, LogValue)] = [("status", .of(status)), ("phase", .string(phase.rawValue)),
                                            ("termination", .string(termination.rawValue)), ("why", .string(why)),
                                            ("latency_ms", .double(Double(nanoseconds) / 1e6))]
        if let label { fields.insert(("route", .string(label)), at: 0) }
        logger.log(termination.byClient && !closedByWatchdog ? .info : .warning, "request ended without a response", fields)
    }
}

/// libmicrohttpd's own messages (MHD_USE_ERROR_LOG): why it refused a connection at the limits
/// or closed one mid-request, which no other callback reports. Formatted here, since only this
/// file may hold MHD's pointers; a quoted URL is left out of the log.
private func tapwireLibraryMessage(cls: UnsafeMutableRawPointer?, format: UnsafePointer<CChar>?, arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    var text = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&text, text.count, format, arguments)
    let message = libraryMessageForLog(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    server.logger.warning("libmicrohttpd", ["message": .string(message)])
}

/// A libmicrohttpd message as it may be logged: one line, with any `quoted' text (the URL of the
/// request it concerns, which may carry anything a client sent) replaced by an ellipsis.
func libraryMessageForLog(_ raw: String) -> String {
    var out = ""
    var rest = Substring(raw)
    while let open = rest.firstIndex(of: "`") {
        out += rest[...open]
        guard let close = rest[rest.index(after: open)...].firstIndex(of: "'") else {
            rest = rest[rest.endIndex...]
            out += "…"
            break
        }
        out += "…"
        rest = rest[close...]
    }
    out += rest
    return out.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// Collects one kind of connection values (headers, query arguments) into a dictionary, and
/// every value, in arrival order, of the names in `watched` (a repeated header is one entry per
/// field in libmicrohttpd's list; the dictionary keeps the last).
private final class ValueCollector {
    var values: [String: String] = [:]
    var every: [String: [String]] = [:]
    let lowercaseKeys: Bool
    let watched: Set<String>
    init(lowercaseKeys: Bool, watched: Set<String>) {
        self.lowercaseKeys = lowercaseKeys
        self.watched = watched
    }
}

private func collectValues(_ connection: OpaquePointer, kind: MHD_ValueKind, lowercaseKeys: Bool,
                           keepingEvery watched: Set<String> = []) -> (values: [String: String], every: [String: [String]]) {
    let collector = ValueCollector(lowercaseKeys: lowercaseKeys, watched: watched)
    let unmanaged = Unmanaged.passRetained(collector)
    defer { unmanaged.release() }
    _ = MHD_get_connection_values(connection, kind, tapwireCollectValue, unmanaged.toOpaque())
    return (collector.values, collector.every)
}

private func tapwireCollectValue(cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?,
                                 value: UnsafePointer<CChar>?) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
    let raw = String(cString: key)
    let name = collector.lowercaseKeys ? raw.lowercased() : raw
    let text = value.map { String(cString: $0) } ?? ""
    collector.values[name] = text
    if collector.watched.contains(name) { collector.every[name, default: []].append(text) }
    return .YES
}

extension SocketAddress {
    /// The address as libmicrohttpd takes it; the pointer is valid only inside `body`.
    fileprivate func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        switch self {
        case .v4(var address):
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        case .v6(var address):
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
    }
}
