import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import TapwireCore

/// A webhook receiver on a loopback port: records every POST. `mode` decides the answer:
/// 200, 503, or hang (hold the connection without answering).
public final class WebhookReceiver: Sendable {
    public enum Mode: Sendable { case ok, unavailable, hang }

    public struct Message: Sendable {
        public var alertId: String
        public var body: JSONValue?
    }

    public let port: Int
    private let listener: Int32
    private let state = Mutex<(messages: [Message], mode: Mode, attempts: Int, held: [Int32])>(([], .ok, 0, []))
    private let running = Atomic<Bool>(true)
    private let done = DispatchSemaphore(value: 0)

    /// Listens on `port` (0: any free one).
    public init(port: Int = 0, mode: Mode = .ok) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw ReceiverError(message: "receiver cannot listen on \(port): errno \(errno)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        listener = fd
        state.withLock { $0.mode = mode }
        let thread = Thread { [self] in
            self.acceptLoop()
            self.done.signal()
        }
        thread.start()
    }

    public var url: String { "http://127.0.0.1:\(port)/hook" }
    public var messages: [Message] { state.withLock { $0.messages } }
    /// Requests seen, answered or not.
    public var attempts: Int { state.withLock { $0.attempts } }
    public func set(_ mode: Mode) { state.withLock { $0.mode = mode } }

    /// Stops listening: the port then refuses connections (the receiver is "down"). The socket
    /// is shut down first, which ends a poll or accept under way, and closed only once the accept
    /// thread has ended: closed earlier, its number could be reused by another socket of this
    /// process (a collector's listener, a database connection) that the thread would then poll
    /// and accept on.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        done.wait()
        close(listener)
        for fd in state.withLock({ $0.held }) { close(fd) }
    }

    private func acceptLoop() {
        while running.load(ordering: .acquiring) {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            serve(client)
        }
    }

    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data += buffer[0..<n]
            if headerEnd == nil, let range = find(data, Array("\r\n\r\n".utf8)) {
                headerEnd = range + 4
                let head = String(decoding: data[0..<range], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let end = headerEnd, data.count >= end + contentLength { break }
        }
        guard let end = headerEnd else { close(fd); return }
        let head = String(decoding: data[0..<end], as: UTF8.self)
        let alertId = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("x-tapwire-alert-id:") }
            .map { String($0.dropFirst(19)).trimmingCharacters(in: .whitespaces) } ?? ""
        let body = Array(data[end...].prefix(contentLength))
        let mode = state.withLock { s -> Mode in
            s.attempts += 1
            if s.mode == .ok { s.messages.append(Message(alertId: alertId, body: try? JSONParser().parse(body))) }
            if s.mode == .hang { s.held.append(fd) }
            return s.mode
        }
        switch mode {
        case .ok: reply(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        case .unavailable: reply(fd, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        case .hang: return
        }
        close(fd)
    }

    private func reply(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<i + needle.count].elementsEqual(needle) { return i }
        return nil
    }
}

public struct ReceiverError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
