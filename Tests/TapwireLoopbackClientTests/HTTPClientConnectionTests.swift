import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TapwireLoopbackClient
import TapwireStore
import TapwireTestSupport

/// The tools' one HTTP client against a real collector over loopback.
@Suite struct HTTPClientConnectionTests {
    @Test func aRequestHeadIsExactlyTheBytesAsked() {
        let head = String(decoding: httpRequestHead("POST", "/v1/batch", headers: ["Content-Type": "application/json"], contentLength: 3,
                                                    host: "10.0.0.1"), as: UTF8.self)
        #expect(head == "POST /v1/batch HTTP/1.1\r\nHost: 10.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n")
        let chunked = String(decoding: httpRequestHead("POST", "/", headers: ["Transfer-Encoding": "chunked"], contentLength: 3), as: UTF8.self)
        #expect(chunked == "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    }

    @Test func requestsShareOneKeepAliveConnection() throws {
        let server = try TestCollector.start()
        let connection = try HTTPClientConnection(host: "localhost", port: server.port)
        defer { connection.close() }
        let first = try connection.request("GET", "/healthz")
        let second = try connection.request("GET", "/v1/nothing-here")
        #expect(first.status == 200)
        #expect(second.status == 404)
        #expect(second.errorCode != nil)
    }

    @Test func answers200SaysWhetherTheCollectorIsUp() throws {
        let server = try TestCollector.start()
        #expect(HTTPClientConnection.answers200(port: server.port))
        #expect(!HTTPClientConnection.answers200(port: server.port, path: "/v1/nothing-here"))
        let port = server.port
        server.stop()
        #expect(!HTTPClientConnection.answers200(port: port))
    }

    /// A server that never answers and one that closes the connection are different failures,
    /// and the error says which (a benchmark's "connection closed before a response" could be
    /// either before).
    @Test func noAnswerInTimeIsNotAClose() throws {
        let listener = try SilentListener()
        let silent = try HTTPClientConnection(port: listener.port, timeout: 0.3)
        defer { silent.close() }
        try silent.send(httpRequestHead("GET", "/healthz", headers: [:], contentLength: nil))
        do {
            _ = try silent.readResponse()
            Issue.record("a response from a server that never answers")
        } catch {
            #expect(error.code == .timedOut, "\(error)")
            #expect(error.message == "no response within 0.3 s (0 bytes read)")
        }
        #expect(!silent.isClosedByPeer())

        let closing = try HTTPClientConnection(port: listener.port, timeout: 5)
        defer { closing.close() }
        try listener.acceptAndClose(2) // the silent one, then this one
        do {
            _ = try closing.readResponse()
            Issue.record("a response from a server that closed the connection")
        } catch {
            #expect(error.code == .closed, "\(error)")
        }
    }

    /// A connection closed by one thread while another uses it: a read in progress is woken at
    /// once, and no later call reaches the descriptor number, which the process may have given to
    /// another socket (a test's sender thread that outlived its connection once wrote a byte into
    /// a new PostgreSQL connection that way, and the server closed that connection).
    @Test func aCloseFromAnotherThreadEndsEveryCallWithoutReusingTheDescriptor() throws {
        let listener = try SilentListener()
        let connection = try HTTPClientConnection(port: listener.port, timeout: 20)
        let failure = Mutex<HTTPClientError?>(nil)
        let readEnded = DispatchSemaphore(value: 0)
        Thread {
            do {
                _ = try connection.readResponse()
            } catch {
                failure.withLock { $0 = error as? HTTPClientError }
            }
            readEnded.signal()
        }.start()
        // Likely inside recv by now; the outcome must be the same if not.
        Thread.sleep(forTimeInterval: 0.2)
        connection.close()
        #expect(readEnded.wait(timeout: .now() + 10) == .success, "close() did not wake the read (its timeout is 20 s)")
        #expect(failure.withLock { $0?.code } == .closedHere, "\(String(describing: failure.withLock { $0 }))")
        do {
            try connection.send(Array("x".utf8))
            Issue.record("a send after close() reached a descriptor")
        } catch {
            #expect(error.code == .closedHere, "\(error)")
        }
        do {
            _ = try connection.readResponse()
            Issue.record("a read after close() reached a descriptor")
        } catch {
            #expect(error.code == .closedHere, "\(error)")
        }
    }

    @Test func failuresSayWhichStepFailed() {
        do {
            _ = try HTTPClientConnection(host: "collector.example", port: 8080)
            Issue.record("a host name was taken for an IPv4 address")
        } catch {
            #expect(error.code == .badAddress)
        }
        do {
            _ = try HTTPClientConnection(port: EmbeddedPostgres.freePort())
            Issue.record("connected to a port nothing listens on")
        } catch {
            #expect(error.code == .connectFailed)
        }
    }
}

/// A loopback port whose connections the kernel accepts but nobody answers (the listening
/// socket is never read from until `acceptAndClose`).
final class SilentListener {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(fd, raw, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw TestClientError(message: "cannot listen on 127.0.0.1") }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts `count` waiting connections and closes each at once.
    func acceptAndClose(_ count: Int) throws {
        for _ in 0..<count {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { throw TestClientError(message: "accept failed") }
            Glibc.close(connection)
        }
    }

    deinit { Glibc.close(fd) }
}
