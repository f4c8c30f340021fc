import Foundation
import TapwireCore
import TapwireServer
#if canImport(Glibc)
import Glibc
#endif

/// A response as the test client read it off the socket.
public struct TestResponse: Sendable {
    public var status: Int
    /// Lowercased names.
    public var headers: [String: String]
    public var body: [UInt8]

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue? { try? JSONParser().parse(body) }
    /// `error.code` of an error body.
    public var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

public struct TestClientError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// A deliberately plain HTTP/1.1 client over a loopback socket: tests need to send exactly the
/// bytes they mean (bad encodings, partial bodies, stalls), which URLSession would not allow.
public struct HTTPTestClient: Sendable {
    public let port: Int
    public init(port: Int) { self.port = port }

    /// Basic auth header value for a key.
    public static func basic(_ key: String) -> String {
        "Basic " + Data((key + ":").utf8).base64EncodedString()
    }

    public func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = [],
                        timeout: Double = 30) throws -> TestResponse {
        let connection = try TestConnection(port: port, timeout: timeout)
        defer { connection.close() }
        try connection.send(Self.head(method, path, headers: headers, contentLength: body.count) + body)
        return try connection.readResponse()
    }

    /// POST with a key, gzip-compressing the body unless told otherwise.
    public func post(_ path: String, key: String?, json: [UInt8], encoding: String? = "gzip",
                     extraHeaders: [String: String] = [:]) throws -> TestResponse {
        var headers = extraHeaders
        headers["Content-Type"] = "application/json"
        if let key { headers["Authorization"] = Self.basic(key) }
        var body = json
        if let encoding {
            headers["Content-Encoding"] = encoding
            switch encoding {
            case "gzip": body = Compression.compress(json, format: .gzip)
            case "deflate": body = Compression.compress(json, format: .zlib)
            default: break
            }
        }
        return try request("POST", path, headers: headers, body: body)
    }

    public func get(_ path: String, key: String? = nil) throws -> TestResponse {
        try request("GET", path, headers: key.map { ["Authorization": Self.basic($0)] } ?? [:])
    }

    public static func head(_ method: String, _ path: String, headers: [String: String], contentLength: Int?) -> [UInt8] {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let contentLength, headers["Transfer-Encoding"] == nil { text += "Content-Length: \(contentLength)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}

/// One TCP connection to the server (keep-alive capable).
/// @unchecked Sendable: `send` touches only the socket (the kernel serializes it), and the read
/// buffer is used by whichever single thread reads responses; tests never read from two threads.
public final class TestConnection: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    public init(port: Int, timeout: Double = 30) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError(message: "socket() failed") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw TestClientError(message: "cannot connect to 127.0.0.1:\(port)")
        }
    }

    private var closed = false

    /// Idempotent: a second close must not close a descriptor number the process has reused
    /// (the server under test runs in this process, so that would be one of its sockets).
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    deinit { close() }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        try bytes.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw TestClientError(message: "send failed (errno \(errno))") }
                offset += n
            }
        }
    }

    /// Reads more bytes; false on EOF or timeout.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one response (Content-Length or chunked, or until close).
    public func readResponse() throws -> TestResponse {
        var headerEnd: Int?
        while headerEnd == nil {
            if let range = findHeaderEnd() { headerEnd = range; break }
            guard fill() else { throw TestClientError(message: "connection closed before a response (\(buffer.count) bytes read)") }
        }
        let headText = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        buffer.removeFirst(headerEnd! + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestClientError(message: "bad status line") }
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
                while !buffer.containsCRLF { guard fill() else { return TestResponse(status: status, headers: headers, body: body) } }
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
        return TestResponse(status: status, headers: headers, body: body)
    }

    private func findHeaderEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// True when the server has closed the connection (EOF within the socket timeout).
    public func isClosedByPeer() -> Bool { !fill() }
}

extension Array where Element == UInt8 {
    var firstCRLF: Int? {
        guard count >= 2 else { return nil }
        for i in 0..<(count - 1) where self[i] == 13 && self[i + 1] == 10 { return i }
        return nil
    }
    var containsCRLF: Bool { firstCRLF != nil }
}
