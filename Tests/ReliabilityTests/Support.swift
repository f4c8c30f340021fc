import Foundation
import Synchronization
import TapwireCore
#if canImport(Glibc)
import Glibc
#endif

/// A raw TCP connection from a chosen loopback source address (all of 127.0.0.0/8 is local on
/// Linux), so tests can play many client IPs against the per-IP limits.
final class SourceBoundSocket: @unchecked Sendable {
    // @unchecked Sendable: one test thread owns each socket; `close` is idempotent under a Mutex.
    let fd: Int32
    private let closed = Mutex(false)

    init(from source: String, toPort port: Int, timeout: Double = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError("socket() failed") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { Glibc.close(fd); throw SocketError("cannot bind \(source)") }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { Glibc.close(fd); throw SocketError("cannot connect from \(source)") }
    }

    /// False once the peer has closed or reset the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) == raw.count }
    }

    /// What the server sent until it closed (or the timeout passed): nil when it sent nothing and closed.
    func readAll() -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// True when the server has closed this connection (EOF or reset) within `timeout`.
    func closedByPeer(within timeout: Double) -> Bool {
        var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pollfd, 1, Int32(timeout * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }

    func close() {
        closed.withLock { done in
            guard !done else { return }
            done = true
            Glibc.close(fd)
        }
    }

    deinit { close() }
}

struct SocketError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Resident memory of a process, from /proc (VmRSS and VmHWM), in bytes.
enum ProcessMemory {
    static func field(_ name: String, pid: Int32 = getpid()) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kb * 1024
    }
    static func resident(pid: Int32 = getpid()) -> Int { field("VmRSS", pid: pid) }
}
