import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization
import TapwireCore
import TapwireZlib
#if canImport(Glibc)
import Glibc
#endif

// The libmicrohttpd driver. Every MHD_* call lives in this file. MHD runs an epoll thread pool;
// our callbacks are plain nonisolated functions (a closure in main.swift would be main-actor
// isolated and trap when MHD calls it from its own thread).

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

    public init() {}
}

public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

public final class HTTPServer: Sendable {
    let handler: any HTTPHandler
    public let options: HTTPServerOptions
    private let daemon = Mutex<UInt>(0)
    private let boundPort = Atomic<Int>(0)
    let watchdog: UploadWatchdog
    let bodyBudget: BodyBudget

    public init(handler: any HTTPHandler, options: HTTPServerOptions) {
        self.handler = handler
        self.options = options
        self.bodyBudget = BodyBudget(limit: options.maxBufferedBodyBytes)
        self.watchdog = UploadWatchdog(stalledNanoseconds: UInt64(options.stalledUploadSeconds) * 1_000_000_000,
                                       deadlineNanoseconds: UInt64(options.uploadDeadlineSeconds) * 1_000_000_000,
                                       headerDeadlineNanoseconds: UInt64(options.idleTimeoutSeconds) * 1_000_000_000)
    }

    /// The port actually bound (useful when options.port is 0).
    public var port: Int { boundPort.load(ordering: .acquiring) }

    public func start() throws(HTTPServerError) {
        guard let address = SocketAddress(host: options.host, port: options.port) else {
            throw HTTPServerError(message: "cannot listen on host \(options.host): give an IPv4 or IPv6 address such as 127.0.0.1, 0.0.0.0 or ::1")
        }
        var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue)
        if address.isIPv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let cls = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer? = address.withSockaddr { sockaddrPointer in
            var settings = tapwire_mhd_options(
                flags: flags, address: sockaddrPointer, thread_pool_size: UInt32(max(1, options.threads)),
                connection_limit: UInt32(options.connectionLimit), per_ip_connection_limit: UInt32(options.perIPConnectionLimit),
                connection_timeout_seconds: UInt32(options.idleTimeoutSeconds), connection_memory_limit: options.connectionMemoryLimit,
                listen_backlog: 511)
            return tapwire_mhd_start(&settings, tapwireAccessHandler, cls, tapwireRequestCompleted, cls,
                                     tapwireConnectionNotice, cls, tapwireRequestLine, cls)
        }
        guard let started else {
            throw HTTPServerError(message: "cannot listen on \(options.host):\(options.port): the port is in use or the address is not local (set --port or TAPWIRE_PORT)")
        }
        daemon.withLock { $0 = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(started))) }
        boundPort.store(Int(tapwire_mhd_bound_port(started)), ordering: .releasing)
        watchdog.start()
    }

    /// Stops listening and closes every connection. Call after every in-flight request has been
    /// answered (MHD forbids stopping with suspended connections).
    public func stop() {
        let raw = daemon.withLock { value -> UInt in
            let old = value
            value = 0
            return old
        }
        watchdog.stop()
        guard raw != 0, let pointer = OpaquePointer(bitPattern: raw) else { return }
        MHD_stop_daemon(pointer)
    }

    /// Stops accepting new connections (first step of a graceful shutdown).
    public func quiesce() {
        let raw = daemon.withLock { $0 }
        guard raw != 0, let pointer = OpaquePointer(bitPattern: raw) else { return }
        _ = MHD_quiesce_daemon(pointer)
    }

    /// Bytes of request bodies held decoded right now (for tests and metrics).
    public var bufferedBodyBytes: Int { bodyBudget.used }

    public var currentConnections: Int {
        let raw = daemon.withLock { $0 }
        guard raw != 0, let pointer = OpaquePointer(bitPattern: raw) else { return 0 }
        return Int(tapwire_mhd_current_connections(pointer))
    }
}

/// A MHD connection pointer that crosses threads. @unchecked Sendable is safe because the only
/// call made with it off the MHD thread is MHD_resume_connection, which libmicrohttpd documents
/// as callable from any thread when MHD_ALLOW_SUSPEND_RESUME is set, and it is made only while
/// the request is suspended, before the completion callback can run (MHD does not complete
/// suspended connections; the server is never stopped with one).
struct ConnectionRef: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// The state of one request across MHD's callbacks and the thread that eventually responds.
final class RequestContext: Sendable {
    enum Phase: Sendable { case receiving, handling, suspended, resuming, responding, finished }

    struct State {
        var phase: Phase = .receiving
        var body: BodyReader?
        /// An error found while reading the body; MHD only lets us answer once the body has ended.
        var failure: HTTPResponse?
        var response: HTTPResponse?
        /// What the client still owes of its body and for how long (the upload watchdog's
        /// judgement); nil for requests without a body.
        var account: UploadAccount?
        /// Where this request ends in the connection's byte stream, when known: the next
        /// request on the connection starts there.
        var wireEnd: UInt64?
        /// Our own duplicate of the socket, so the upload watchdog can answer 408 on it: a dup
        /// refers to this connection's socket even if MHD has closed (and reused) its descriptor.
        var watchdogSocket: Int32 = -1
        var timedOut = false
        /// Bytes of `bodyBudget` this request holds once its body is decoded, until it completes.
        var budgetBytes = 0
        var status = 0
        var annotations: [String: Int] = [:]
    }

    let head: RequestHead
    let startedAt: UInt64
    let connection: ConnectionRef
    let state: Mutex<State>

    init(head: RequestHead, connection: OpaquePointer, now: UInt64) {
        self.head = head
        self.connection = ConnectionRef(pointer: connection)
        self.startedAt = now
        self.state = Mutex(State())
    }

    /// The handler's answer. Exactly the first call counts.
    func deliver(_ response: HTTPResponse) {
        state.withLock { s in
            guard s.response == nil, s.phase != .finished else { return }
            s.response = response
            if s.phase == .suspended {
                s.phase = .resuming
                MHD_resume_connection(connection.pointer)
            }
        }
    }

    func closeWatchdogSocket(_ s: inout State) {
        if s.watchdogSocket >= 0 {
            close(s.watchdogSocket)
            s.watchdogSocket = -1
        }
    }
}

/// One TCP connection, from libmicrohttpd's "started" notice to its "closed" one: when it began
/// waiting for its next request's headers (nil while a request is in progress), and whether its
/// request line was refused.
final class OpenConnection: Sendable {
    struct State {
        /// Our own duplicate of the socket (see `RequestContext.State.watchdogSocket`).
        var socket: Int32
        var waitingSince: UInt64?
        var refused = false
        /// Where the next request begins in the connection's byte stream (bytes since the
        /// connection opened); nil once a request of unknown wire length (chunked) has passed.
        var nextRequestStart: UInt64? = 0
    }

    let state: Mutex<State>

    init(socket: Int32, now: UInt64) { state = Mutex(State(socket: socket, waitingSince: now)) }

    func close() {
        state.withLock { c in
            if c.socket >= 0 { Glibc.close(c.socket) }
            c.socket = -1
        }
    }
}

/// The bytes of decoded request bodies the whole server may hold at once.
final class BodyBudget: Sendable {
    let limit: Int
    private let held = Atomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    var used: Int { held.load(ordering: .relaxed) }

    func reserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        if held.wrappingAdd(bytes, ordering: .relaxed).newValue > limit {
            held.wrappingSubtract(bytes, ordering: .relaxed)
            return false
        }
        return true
    }

    func release(_ bytes: Int) { if bytes > 0 { held.wrappingSubtract(bytes, ordering: .relaxed) } }
}

/// Reads a body under a route's limits: counts wire bytes, inflates gzip/deflate as it comes.
final class BodyReader {
    enum Encoding { case identity, gzip, deflate }

    let policy: BodyPolicy
    let encoding: Encoding
    private var inflater: Inflater?
    private var plain: [UInt8] = []
    private(set) var wireBytes = 0
    private let budget: BodyBudget?
    /// What this body holds of `budget`.
    private(set) var reserved = 0

    init(policy: BodyPolicy, encoding: Encoding, budget: BodyBudget? = nil) {
        self.policy = policy
        self.encoding = encoding
        self.budget = budget
        switch encoding {
        case .identity: inflater = nil
        case .gzip: inflater = Inflater(format: .gzip, limit: policy.maxDecodedBytes)
        case .deflate: inflater = Inflater(format: .deflate, limit: policy.maxDecodedBytes)
        }
    }

    /// Content-Encoding → encoding; nil for anything we do not decode (→ 415).
    static func encoding(for header: String?) -> Encoding? {
        guard let header = header?.trimmingCharacters(in: [" "]).lowercased(), !header.isEmpty else { return .identity }
        switch header {
        case "identity": return .identity
        case "gzip", "x-gzip": return .gzip
        case "deflate": return .deflate
        default: return nil
        }
    }

    func feed(_ chunk: [UInt8]) throws(APIError) {
        wireBytes += chunk.count
        if wireBytes > policy.maxWireBytes {
            throw APIError(.payloadTooLarge, "the body is larger than \(policy.maxWireBytes) bytes")
        }
        guard let inflater else {
            if plain.count + chunk.count > policy.maxDecodedBytes {
                throw APIError(.payloadTooLarge, "the body is larger than \(policy.maxDecodedBytes) bytes")
            }
            plain.append(contentsOf: chunk)
            try hold(plain.count)
            return
        }
        var failure: InflateError?
        chunk.withUnsafeBytes { raw in
            do throws(InflateError) {
                try inflater.feed(raw)
            } catch {
                failure = error
            }
        }
        if let failure { throw Self.apiError(failure) }
        try hold(inflater.output.count)
    }

    /// Grows this body's share of the server-wide budget to `decoded` bytes, or refuses.
    private func hold(_ decoded: Int) throws(APIError) {
        guard let budget, decoded > reserved else { return }
        guard budget.reserve(decoded - reserved) else {
            throw APIError(.overloaded, "the collector is holding too many request bodies at once; nothing was stored, retry shortly",
                           retryAfterSeconds: 1)
        }
        reserved = decoded
    }

    /// Gives the budget back (the body was dropped before it was handled).
    func releaseBudget() {
        budget?.release(reserved)
        reserved = 0
    }

    func finish() throws(APIError) -> [UInt8] {
        guard let inflater else { return plain }
        do {
            try inflater.finish()
        } catch {
            throw Self.apiError(error)
        }
        return inflater.output
    }

    static func apiError(_ error: InflateError) -> APIError {
        switch error {
        case .tooLarge(let limit):
            return APIError(.decompressedTooLarge, "the body decompresses to more than \(limit) bytes")
        case .corrupt(let why):
            return APIError(.invalidCompression, "the compressed body is corrupt: \(why)")
        case .truncated:
            return APIError(.invalidCompression, "the compressed body is truncated")
        }
    }
}

// MARK: - MHD callbacks (plain functions: they run on MHD's threads)

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
        let context = RequestContext(head: head, connection: connection, now: monotonicNanoseconds())
        let headBytes = UInt64(tapwire_mhd_request_header_size(connection))
        context.state.withLock { s in
            s.wireEnd = wireEnd(start: requestStart, headBytes: headBytes, head: head)
        }
        requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        return begin(context, server: server, connection: connection)
    }
    let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()

    if uploadDataSize.pointee > 0 {
        // Copied out of MHD's buffer, which is only valid during this call.
        let chunk = Array(UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee))
        let keepGoing = context.state.withLock { s -> Bool in
            if s.timedOut { return false }
            s.account?.delivered(now: monotonicNanoseconds())
            guard s.failure == nil, let body = s.body else { return true } // past an error: discard the rest
            do throws(APIError) {
                try body.feed(chunk)
            } catch {
                s.failure = .error(error)
                body.releaseBudget()
                s.body = nil // frees what was decoded so far
            }
            return true
        }
        uploadDataSize.pointee = 0
        return keepGoing ? .YES : .NO
    }
    return advance(context, server: server, connection: connection)
}

/// Where a request ends in its connection's byte stream: its start, its head as libmicrohttpd
/// parsed it, and its Content-Length. Unknown (nil) for chunked bodies, whose framing we never
/// see, and when the start or the head's size is unknown.
func wireEnd(start: UInt64?, headBytes: UInt64, head: RequestHead) -> UInt64? {
    guard let start, headBytes > 0, head.header("transfer-encoding") == nil else { return nil }
    if head.header("content-length") == nil { return start &+ headBytes }
    guard let body = head.contentLength, body >= 0 else { return nil }
    return start &+ headBytes &+ UInt64(body)
}

/// The headers are in: admit or refuse before reading any of the body.
private func begin(_ context: RequestContext, server: HTTPServer, connection: OpaquePointer) -> MHD_Result {
    let head = context.head
    // Ambiguous framing first, whatever the route: where this request's body ends, and so where
    // the next request starts, is unknowable, so the connection is closed after the answer
    // (RFC 9112 §6.3).
    if let problem = head.framing.problem {
        var response = HTTPResponse.error(APIError(.badRequest, problem))
        response.headers.append(("Connection", "close"))
        return respondNow(context, response, connection: connection)
    }
    switch server.handler.admit(head) {
    case .reject(let response):
        return respondNow(context, response, connection: connection)
    case .accept(let policy):
        let hasBody = (head.contentLength ?? 0) > 0 || head.header("transfer-encoding")?.lowercased().contains("chunked") == true
        guard let policy else { return .YES } // a body on a route that takes none is read and ignored
        if let length = head.contentLength, length > policy.maxWireBytes {
            return respondNow(context, .error(APIError(.payloadTooLarge,
                "Content-Length \(length) is over the limit of \(policy.maxWireBytes) bytes; send smaller batches")), connection: connection)
        }
        guard let encoding = BodyReader.encoding(for: head.header("content-encoding")) else {
            return respondNow(context, .error(APIError(.unsupportedEncoding,
                "Content-Encoding \(FieldRules.truncatedForEcho(head.header("content-encoding") ?? "")) is not supported; use gzip, deflate or identity")),
                connection: connection)
        }
        context.state.withLock { s in
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

/// The body is complete (or the handler has answered and MHD resumed us).
private func advance(_ context: RequestContext, server: HTTPServer, connection: OpaquePointer) -> MHD_Result {
    enum Step { case respond(HTTPResponse), dispatch(HTTPRequest), close, wait }
    let step = context.state.withLock { s -> Step in
        switch s.phase {
        case .receiving:
            if s.timedOut { return .close }
            context.closeWatchdogSocket(&s)
            if let failure = s.failure {
                s.phase = .responding
                return .respond(failure)
            }
            do throws(APIError) {
                let body = try s.body?.finish() ?? []
                let wire = s.body?.wireBytes ?? 0
                s.budgetBytes = s.body?.reserved ?? 0 // held until the request completes
                s.body = nil
                s.phase = .handling
                return .dispatch(HTTPRequest(head: context.head, body: body, receivedAt: .now, wireBytes: wire))
            } catch {
                s.body?.releaseBudget()
                s.body = nil
                s.phase = .responding
                return .respond(.error(error))
            }
        case .resuming:
            s.phase = .responding
            return s.response.map { .respond($0) } ?? .close
        case .handling, .suspended, .responding, .finished:
            return .wait
        }
    }
    switch step {
    case .close:
        return .NO
    case .wait:
        return .YES
    case .respond(let response):
        server.watchdog.forget(context)
        return queue(response, context: context, connection: connection)
    case .dispatch(let request):
        server.watchdog.forget(context)
        server.handler.handle(request) { response in context.deliver(response) }
        let now = context.state.withLock { s -> HTTPResponse? in
            if let response = s.response {
                s.phase = .responding
                return response
            }
            s.phase = .suspended
            MHD_suspend_connection(connection)
            return nil
        }
        if let now { return queue(now, context: context, connection: connection) }
        return .YES
    }
}

private func respondNow(_ context: RequestContext, _ response: HTTPResponse, connection: OpaquePointer) -> MHD_Result {
    context.state.withLock { $0.phase = .responding }
    return queue(response, context: context, connection: connection)
}

private func queue(_ response: HTTPResponse, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
    context.state.withLock {
        $0.status = response.status
        $0.annotations = response.annotations
    }
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
    if let connection, let entry = openConnection(connection) {
        entry.state.withLock { c in
            c.waitingSince = c.refused ? nil : monotonicNanoseconds()
            c.nextRequestStart = ended
        }
    }
    guard let cls, let requestContext, let raw = requestContext.pointee else { return }
    requestContext.pointee = nil
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    server.watchdog.forget(context)
    let (status, annotations) = context.state.withLock { s -> (Int, [String: Int]) in
        s.phase = .finished
        s.body?.releaseBudget()
        s.body = nil
        server.bodyBudget.release(s.budgetBytes)
        s.budgetBytes = 0
        context.closeWatchdogSocket(&s)
        return (s.status, s.annotations)
    }
    server.handler.completed(context.head, status: status, annotations: annotations,
                             nanoseconds: monotonicNanoseconds() &- context.startedAt)
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

/// An IPv4 or IPv6 socket address built from text.
struct SocketAddress {
    private var v4 = sockaddr_in()
    private var v6 = sockaddr_in6()
    let isIPv6: Bool

    init?(host: String, port: Int) {
        let name = host == "localhost" ? "127.0.0.1" : host
        guard (0...65535).contains(port) else { return nil }
        if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            isIPv6 = false
        } else if inet_pton(AF_INET6, name, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            isIPv6 = true
        } else {
            return nil
        }
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        if isIPv6 {
            var copy = v6
            return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        var copy = v4
        return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }
}
