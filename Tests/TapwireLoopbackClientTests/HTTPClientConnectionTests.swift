import Foundation
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
