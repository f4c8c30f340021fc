import Foundation
import Synchronization
import TapwireCore
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of a request head.
public func httpRequestHead(_ method: String, _ path: String, headers: [String: String], contentLength: Int?,
                            host: String = "127.0.0.1") -> [UInt8] {
    var text = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if let contentLength, headers["Transfer-Encoding"] == nil { text += "Content-Length: \(contentLength)\r\n" }
    return Array((text + "\r\n").utf8)
}

/// The one plain HTTP/1.1 client of the tools, over a TCP connection to a collector on an IPv4
/// address (loopback in practice), keep-alive capable: what `tapwire-bench`, `tapwire-soak` and
/// `tapwire demo` post with, and what tests use to send exactly the bytes they mean (bad
/// encodings, partial bodies, stalls), which URLSession would not allow.
/// @unchecked Sendable: the descriptor is reached only through `withDescriptor` (behind a Mutex),
/// and the read buffer is used by whichever single thread reads responses; callers never read
/// from two threads.
public final class HTTPClientConnection: @unchecked Sendable {
    /// The socket, and how many sends and reads are using it right now. `close()` releases the
    /// number only once none is (see `withDescriptor`).
    private struct Descriptor {
        let fd: Int32
        var users = 0
        var closed = false
    }
    private let descriptor: Mutex<Descriptor>
    /// The Host header `request` sends.
    public let host: String
    /// Seconds a read may wait for bytes.
    public let timeout: Double
    private var buffer: [UInt8] = []

    public init(host: String = "127.0.0.1", port: Int, timeout: Double = 30) throws(HTTPClientError) {
        self.host = host
        self.timeout = timeout
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            throw HTTPClientError(.badAddress, message: "\(host) is not an IPv4 address such as 127.0.0.1")
        }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError(.socketFailed, message: "socket() failed") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw HTTPClientError(.connectFailed, message: "cannot connect to \(host):\(port)")
        }
        descriptor = Mutex(Descriptor(fd: fd))
    }

    /// Whether `GET path` on a new connection answers 200 within `timeout` seconds: is the
    /// collector up yet.
    public static func answers200(port: Int, path: String = "/healthz", timeout: Double = 2) -> Bool {
        guard let connection = try? HTTPClientConnection(port: port, timeout: timeout) else { return false }
        defer { connection.close() }
        guard (try? connection.send(httpRequestHead("GET", path, headers: ["Connection": "close"], contentLength: nil))) != nil else { return false }
        return (try? connection.readResponse())?.status == 200
    }

    /// Sends one request with a Content-Length body and reads its response.
    public func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) throws(HTTPClientError)
        -> HTTPClientResponse {
        try send(httpRequestHead(method, path, headers: headers, contentLength: body.count, host: host) + body)
        return try readResponse()
    }

    /// Idempotent, and safe while another thread sends or reads: no call of this connection
    /// reaches its descriptor number once the process may have given it to another socket (the
    /// server under test runs in this process: a test's sender thread that outlived its
    /// connection once wrote a byte into a new PostgreSQL connection, which the server then
    /// closed). A send or read in progress is woken by a shutdown and the last one releases the
    /// number; any later call throws `closedHere` without touching a descriptor.
    public func close() {
        let release = descriptor.withLock { d -> Int32? in
            guard !d.closed else { return nil }
            d.closed = true
            guard d.users == 0 else {
                // Still open (its last user closes it), so this cannot reach another socket.
                shutdown(d.fd, Int32(SHUT_RDWR))
                return nil
            }
            return d.fd
        }
        if let release { Glibc.close(release) }
    }

    deinit { close() }

    /// Runs one system call on the socket; nil, without calling `body`, once `close()` was called.
    /// `closed` says whether `close()` came while the call was in progress (it then woke it).
    private func withDescriptor<R>(_ body: (Int32) -> R) -> (result: R, closed: Bool)? {
        guard let fd = descriptor.withLock({ d -> Int32? in
            guard !d.closed else { return nil }
            d.users += 1
            return d.fd
        }) else { return nil }
        let result = body(fd)
        let (closed, release) = descriptor.withLock { d -> (Bool, Bool) in
            d.users -= 1
            return (d.closed, d.closed && d.users == 0)
        }
        if release { Glibc.close(fd) }
        return (result, closed)
    }

    private static let closedHere = HTTPClientError(.closedHere, message: "the connection was closed by this client")

    public func send(_ bytes: [UInt8]) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let call = withDescriptor { fd in
                let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return (n, errno)
            }
            guard let call, !call.closed else { throw Self.closedHere }
            let (n, error) = call.result
            guard n > 0 else { throw HTTPClientError(.sendFailed, message: "send failed (errno \(error))") }
            offset += n
        }
    }

    /// What one read got.
    private enum Read {
        case bytes
        case closed
        case closedHere
        case timedOut
        case failed(errno: Int32)
    }

    /// Reads more bytes into the buffer.
    private func read() -> Read {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let call = withDescriptor { fd in
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            return (n, errno)
        }
        guard let call else { return .closedHere }
        let (n, error) = call.result
        if n > 0 {
            buffer.append(contentsOf: chunk[0..<n])
            return .bytes
        }
        if call.closed { return .closedHere }
        if n == 0 { return .closed }
        if error == EAGAIN || error == EWOULDBLOCK { return .timedOut }
        return error == ECONNRESET ? .closed : .failed(errno: error)
    }

    /// Reads more bytes; false on EOF, timeout or error.
    private func fill() -> Bool {
        if case .bytes = read() { return true }
        return false
    }

    /// Reads one response (Content-Length or chunked, or until close). Before the head is whole,
    /// it says which of the server closing and the timeout ending the wait happened: a client
    /// cannot otherwise tell a server that dropped its request from one that was slow.
    public func readResponse() throws(HTTPClientError) -> HTTPClientResponse {
        var headerEnd: Int?
        while headerEnd == nil {
            if let range = findHeaderEnd() { headerEnd = range; break }
            switch read() {
            case .bytes: continue
            case .closed: throw HTTPClientError(.closed, message: "connection closed before a response (\(buffer.count) bytes read)")
            case .closedHere: throw Self.closedHere
            case .timedOut:
                throw HTTPClientError(.timedOut, message: "no response within \(String(format: "%g", timeout)) s (\(buffer.count) bytes read)")
            case .failed(let error):
                throw HTTPClientError(.closed, message: "connection failed before a response (errno \(error), \(buffer.count) bytes read)")
            }
        }
        let headText = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw HTTPClientError(.malformedResponse, message: "bad status line") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body: [UInt8] = []
        if let lengthText = headers["content-length"], let length = Int(lengthText) {
            while buffer.count < length { guard fill() else { break } }
            body = Array(buffer.prefix(length))
            buffer.removeFirst(min(length, buffer.count))
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while true {
                while !buffer.containsCRLF { guard fill() else { return HTTPClientResponse(status: status, headers: headers, body: body) } }
                let lineEnd = buffer.firstCRLF!
                let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "0"
                let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
                buffer.removeFirst(lineEnd + 2)
                if size == 0 { break }
                while buffer.count < size + 2 { guard fill() else { break } }
                body.append(contentsOf: buffer.prefix(size))
                buffer.removeFirst(min(size + 2, buffer.count))
            }
        } else {
            while fill() {}
            body = buffer
            buffer = []
        }
        return HTTPClientResponse(status: status, headers: headers, body: body)
    }

    private func findHeaderEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// True when the server has closed the connection within the socket timeout (a timeout is
    /// not a close: the connection is still open).
    public func isClosedByPeer() -> Bool {
        if case .closed = read() { return true }
        return false
    }
}

extension Array where Element == UInt8 {
    var firstCRLF: Int? {
        guard count >= 2 else { return nil }
        for i in 0..<(count - 1) where self[i] == 13 && self[i + 1] == 10 { return i }
        return nil
    }
    var containsCRLF: Bool { firstCRLF != nil }
}
