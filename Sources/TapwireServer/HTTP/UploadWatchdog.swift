import CMicroHTTPD
import Foundation
import Synchronization
import TapwireCore
import TapwireLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// Answers 408 for uploads whose clients stall or crawl (`UploadAccount` decides), and closes
/// connections whose next request's headers do not arrive by the header deadline. libmicrohttpd
/// calls us only when bytes arrive, so a stalled client would otherwise just be disconnected in
/// silence at the idle timeout. The sockets it looks at are our own duplicates (see
/// `RequestContext.State.watchdogSocket`); it never calls libmicrohttpd.
final class UploadWatchdog: Sendable {
    private let uploads = Mutex<[ObjectIdentifier: RequestContext]>([:])
    private let connections = Mutex<[ObjectIdentifier: OpenConnection]>([:])
    private let loop = BackgroundLoop(name: "tapwire-upload-watchdog")
    private let sweepInterval: UInt64
    private let clock: Mutex<WatchdogClock>
    private let stalledNanoseconds: UInt64
    private let deadlineNanoseconds: UInt64
    private let headerDeadlineNanoseconds: UInt64
    private let logger: Logger

    init(stalledNanoseconds: UInt64, deadlineNanoseconds: UInt64, headerDeadlineNanoseconds: UInt64,
         sweepInterval: UInt64 = 250_000_000, logger: Logger = Logger(label: "http")) {
        self.logger = logger
        self.stalledNanoseconds = stalledNanoseconds
        self.deadlineNanoseconds = deadlineNanoseconds
        self.headerDeadlineNanoseconds = headerDeadlineNanoseconds
        self.sweepInterval = sweepInterval
        clock = Mutex(WatchdogClock(interval: sweepInterval, tolerance: 8 * sweepInterval))
    }

    /// Sweeps every `sweepInterval` until `stop`.
    func start() {
        loop.start { [self] in
            while loop.isRunning {
                loop.pause(seconds: Double(sweepInterval) / 1e9)
                if loop.isRunning { sweep(now: monotonicNanoseconds()) }
            }
        }
    }

    func stop() {
        loop.stop()
    }

    /// A fresh account for a body that starts now and ends at `wireEnd` in its connection's stream.
    func account(now: UInt64, wireEnd: UInt64?) -> UploadAccount {
        UploadAccount(now: now, stallLimit: stalledNanoseconds, deadline: deadlineNanoseconds, wireEnd: wireEnd)
    }

    func watch(_ context: RequestContext) { uploads.withLock { $0[ObjectIdentifier(context)] = context } }
    func forget(_ context: RequestContext) { uploads.withLock { $0[ObjectIdentifier(context)] = nil } }
    func opened(_ connection: OpenConnection) { connections.withLock { $0[ObjectIdentifier(connection)] = connection } }
    func closed(_ connection: OpenConnection) { connections.withLock { $0[ObjectIdentifier(connection)] = nil } }

    /// Open connections waiting for their next request's headers: a request answered on a
    /// keep-alive connection counts here once libmicrohttpd has completed it.
    var connectionsAwaitingHeaders: Int {
        connections.withLock { Array($0.values) }.filter { $0.state.withLock { $0.waitingSince != nil } }.count
    }

    /// One look at every connection and upload. `now` is read once, before any of their locks
    /// is taken: a connection may have moved on since (tests call it with an old `now`).
    func sweep(now: UInt64) {
        let excused = clock.withLock { $0.excuse(now: now) }
        // Connections between requests (just opened, or answered) whose next request's headers
        // are not complete by the deadline: closed, whatever trickles in.
        for connection in connections.withLock({ Array($0.values) }) {
            let waited = connection.state.withLock { c -> UInt64? in
                guard let waited = c.overdueWait(now: now, excused: excused, deadline: headerDeadlineNanoseconds), c.socket >= 0,
                      Self.unreadBytes(c.socket) == 0 else { return nil }
                c.waitingSince = nil
                c.closedByWatchdog = true
                shutdown(c.socket, Int32(SHUT_RDWR))
                return waited
            }
            if let waited {
                // Idle keep-alive connections and slow headers alike: a client that sends a request
                // just as this happens gets no answer, and this line is why.
                logger.info("closed a connection: its next request's headers were overdue",
                            ["waited_s": .double(Double(waited) / 1e9), "deadline_s": .double(Double(headerDeadlineNanoseconds) / 1e9)])
            }
        }
        let watched = uploads.withLock { Array($0.values) }
        for context in watched {
            let done = context.state.withLock { s -> Bool in
                guard s.lifecycle.awaitsBody, s.watchdogSocket >= 0, var account = s.account else { return true }
                let verdict = account.look(now: now, received: Self.bytesReceived(s.watchdogSocket),
                                           unreadBytes: Self.unreadBytes(s.watchdogSocket), excused: excused)
                s.account = account
                switch verdict {
                case .receiving:
                    return false
                case .received:
                    return true
                case .stalled, .late:
                    let response = HTTPResponse.error(APIError(.requestTimeout, verdict == .stalled
                        ? "no body data arrived for \(stalledNanoseconds / 1_000_000_000) seconds"
                        : "the body did not arrive within \(deadlineNanoseconds / 1_000_000_000) seconds"))
                    guard s.lifecycle.uploadTimedOut(response) else { return true }
                    Self.writeRaw(response, to: s.watchdogSocket)
                    shutdown(s.watchdogSocket, Int32(SHUT_RDWR))
                    s.closeWatchdogSocket()
                    return true
                }
            }
            if done { forget(context) }
        }
    }

    /// Bytes the client has sent that the server has not read yet (they wait in the kernel).
    static func unreadBytes(_ socket: Int32) -> Int { max(0, Int(tapwire_socket_unread_bytes(socket))) }

    /// Bytes the kernel has received on the connection since it opened, read or not; nil when
    /// the kernel cannot tell.
    static func bytesReceived(_ socket: Int32) -> UInt64? {
        let count = tapwire_tcp_bytes_received(socket)
        return count >= 0 ? UInt64(count) : nil
    }

    /// Writes a complete HTTP/1.1 response on a socket MHD is not writing to (it is still
    /// waiting for the request body), then the caller shuts the socket down.
    static func writeRaw(_ response: HTTPResponse, to socket: Int32) {
        let reason = response.status == 414 ? "URI Too Long" : "Request Timeout"
        var text = "HTTP/1.1 \(response.status) \(reason)\r\nConnection: close\r\nContent-Length: \(response.body.count)\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        let bytes = Array((text + "\r\n").utf8) + response.body
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return }
                offset += sent
            }
        }
    }
}
