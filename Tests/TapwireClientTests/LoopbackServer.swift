import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import TapwireClient
import TapwireZlib

/// A real HTTP/1.1 server on 127.0.0.1 whose answers a test scripts, so the SDK's URLSession
/// transport, gzip and retry driver are exercised over real sockets. `Connection: close` on every
/// answer. Each connection is read on a thread of its own, with a read timeout: a connection that
/// never sends a whole request (another test's client reaching this port after its own server
/// freed it, which the ephemeral ports allow) must not hold up the client under test. Served one
/// at a time, it held the next request until the transport's 30 s timeout, the whole of a drain's
/// budget: the likeliest cause of a loaded full run in which
/// `aServerDownForAWhileThenRecoveredGetsEverythingOnce` sent 1 request of 15 in its 30 s drain
/// (`aSilentConnectionDoesNotHoldUpTheClient` fails so without the threads).
final class LoopbackServer: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// Lower-cased names.
        var headers: [String: String]
        var body: [UInt8]

        /// The body after Content-Encoding is undone.
        var decodedBody: [UInt8] {
            headers["content-encoding"] == "gzip" ? ((try? Zlib.decompress(body)) ?? []) : body
        }

        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(decodedBody))) as? [String: Any]
        }

        var eventIds: [String] {
            ((json?["events"] as? [[String: Any]]) ?? []).compactMap { $0["eventId"] as? String }
        }
    }

    typealias Handler = @Sendable (Request) -> TransportResponse

    /// How long a connection may go without sending a byte before it is dropped unanswered.
    static let readTimeoutSeconds = 10

    let port: UInt16
    private let listener: Int32
    private let received = Locked<[Request]>([])
    private let done = DispatchSemaphore(value: 0)

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var requests: [Request] { received.withLock { Array($0) } }

    init(handler: @escaping Handler) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        let received = self.received
        let done = self.done
        Thread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    break
                }
                var timeout = timeval(tv_sec: Self.readTimeoutSeconds, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                Thread {
                    if let request = LoopbackServer.readRequest(client) {
                        received.withLock { $0.append(request) }
                        LoopbackServer.write(handler(request), to: client)
                    }
                    close(client)
                }.start()
            }
            done.signal()
        }.start()
    }

    /// A TCP connection to 127.0.0.1:`port` that sends nothing (the caller closes it).
    static func openConnection(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        return fd
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        done.wait()
    }

    private static func readRequest(_ fd: Int32) -> Request? {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var contentLength = 0
        var head: [String] = []
        while true {
            if let end = headerEnd, data.count >= end + contentLength { break }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return nil }
            data.append(contentsOf: chunk[0..<n])
            if headerEnd == nil, let range = find([13, 10, 13, 10], in: data) {
                headerEnd = range + 4
                head = String(decoding: data[0..<range], as: UTF8.self).components(separatedBy: "\r\n")
                for line in head.dropFirst() where line.lowercased().hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        let start = head.first?.split(separator: " ") ?? []
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let end = headerEnd!
        return Request(method: start.count > 0 ? String(start[0]) : "", path: start.count > 1 ? String(start[1]) : "",
                       headers: headers, body: Array(data[end..<end + contentLength]))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] && Array(haystack[i..<i + needle.count]) == needle {
            return i
        }
        return nil
    }

    private static func write(_ response: TransportResponse, to fd: Int32) {
        var text = "HTTP/1.1 \(response.status) Status\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        var bytes = Array(text.utf8) + response.body
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeMutableBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }
}

/// A collector stand-in with the real one's dedup contract: stores each event id once, answers
/// `{"accepted", "duplicates", "rejected"}`, and can be told to fail first.
final class FakeCollector: Sendable {
    struct State {
        var stored: [String: Int] = [:]
        var storeOrder: [String] = []
        var duplicates = 0
        /// Statuses to answer before behaving (each used once), with an optional Retry-After.
        var script: [(status: Int, retryAfter: String?)] = []
        /// 413 for batches of more than this many events.
        var maxEvents = Int.max
        /// Event ids answered as rejected.
        var reject: Set<String> = []
        var refuseGzip = false
        var manifestPosts = 0
    }

    let state: Locked<State>
    let server: LoopbackServer

    init() throws {
        let state = Locked(State())
        self.state = state
        server = try LoopbackServer { request in FakeCollector.answer(request, state) }
    }

    var url: URL { server.url }
    func stop() { server.stop() }

    private static func answer(_ request: LoopbackServer.Request, _ state: Locked<State>) -> TransportResponse {
        state.withLock { s -> TransportResponse in
            if request.headers["authorization"] != "Basic " + Data("wk_test:".utf8).base64EncodedString() {
                return error(401, "unauthorized", "bad key")
            }
            if !s.script.isEmpty {
                let next = s.script.removeFirst()
                return TransportResponse(status: next.status, headers: next.retryAfter.map { ["Retry-After": $0] } ?? [:],
                                    body: Array(#"{"error":{"code":"scripted","message":"scripted failure"}}"#.utf8))
            }
            if s.refuseGzip && request.headers["content-encoding"] != nil {
                return error(415, "unsupported_encoding", "no gzip here")
            }
            if request.path == "/v1/categories" {
                s.manifestPosts += 1
                return TransportResponse(status: 200, body: Array(#"{"manifestId":\#(s.manifestPosts),"contentHash":"x","created":true}"#.utf8))
            }
            guard request.path == "/v1/batch", let events = request.json?["events"] as? [[String: Any]] else {
                return error(400, "invalid_batch", "not a batch")
            }
            if events.count > s.maxEvents { return error(413, "too_large", "too many") }
            var accepted = 0
            var duplicates = 0
            var rejected: [String] = []
            for (index, event) in events.enumerated() {
                let id = event["eventId"] as? String ?? ""
                if s.reject.contains(id) {
                    rejected.append(#"{"index":\#(index),"eventId":"\#(id)","code":"invalid_field","reason":"scripted"}"#)
                    continue
                }
                if s.stored[id] != nil {
                    duplicates += 1
                    s.stored[id, default: 0] += 1
                } else {
                    s.stored[id] = 1
                    s.storeOrder.append(id)
                    accepted += 1
                }
            }
            s.duplicates += duplicates
            return TransportResponse(status: 200, body: Array(#"{"accepted":\#(accepted),"duplicates":\#(duplicates),"rejected":[\#(rejected.joined(separator: ","))]}"#.utf8))
        }
    }

    private static func error(_ status: Int, _ code: String, _ message: String) -> TransportResponse {
        TransportResponse(status: status, body: Array(#"{"error":{"code":"\#(code)","message":"\#(message)"}}"#.utf8))
    }
}
