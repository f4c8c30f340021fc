import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireLoopbackClient
import TapwireServer
import TapwireTestSupport

/// A server shutting down drains: the requests it admitted are answered by their handlers, a
/// request arriving meanwhile gets 503 with Retry-After and its connection closed, and only then
/// do the sockets close. No sleep decides when: the last request's completion does.
@Suite(.serialized) struct HTTPDrainTests {
    /// `/slow` answers once `release` is signalled; anything else at once.
    final class GatedHandler: HTTPHandler {
        let release = DispatchSemaphore(value: 0)
        let arrived = DispatchSemaphore(value: 0)

        func admit(_ head: RequestHead) -> Admission {
            .accept(nil, Responder(label: head.path) { [self] request, respond in
                guard request.path == "/slow" else { return respond(.json(200, ["path": .string(request.path)])) }
                arrived.signal()
                DispatchQueue.global().async { [self] in
                    release.wait()
                    respond(.json(200, ["path": "/slow"]))
                }
            })
        }

        func completed(_ head: RequestHead, label: String?, status: Int, annotations: [String: Int], nanoseconds: UInt64) {}
    }

    static func server(_ handler: GatedHandler, drainSeconds: Double) throws -> RunningServer {
        var options = HTTPServerOptions()
        options.port = 0
        options.drainSeconds = drainSeconds
        return try RunningServer(HTTPServer(handler: handler, options: options))
    }

    /// A server stopping while one admitted request (`/slow`) is unanswered, with a kept-alive
    /// connection that has been answered once: what each drain test starts from.
    struct Draining {
        let handler = GatedHandler()
        let server: RunningServer
        let slow: TestConnection
        let keptAlive: TestConnection
        /// Signalled when `server.stop()` returns, on the thread that called it.
        let stopped = DispatchSemaphore(value: 0)

        init() throws {
            server = try HTTPDrainTests.server(handler, drainSeconds: 60)
            slow = try TestConnection(port: server.port, timeout: 30)
            keptAlive = try TestConnection(port: server.port, timeout: 30)
            #expect(try keptAlive.request("GET", "/fast").status == 200)
            try slow.send(httpRequestHead("GET", "/slow", headers: [:], contentLength: nil))
            handler.arrived.wait()
            let (server, stopped) = (server, stopped)
            Thread {
                server.stop()
                stopped.signal()
            }.start()
        }

        func close() {
            slow.close()
            keptAlive.close()
        }
    }

    @Test func admittedRequestsAreAnsweredAndNewOnesRefusedWhileItDrains() throws {
        let draining = try Draining()
        defer { draining.close() }
        let (handler, server, slow, keptAlive, stopped) = (draining.handler, draining.server, draining.slow, draining.keptAlive, draining.stopped)
        // While the slow request is unanswered the server drains: a new request on a kept-alive
        // connection is refused with 503, and the server does not stop.
        var refused: HTTPClientResponse?
        #expect(eventually(timeout: 20) {
            guard let response = try? keptAlive.request("GET", "/fast"), response.status == 503 else { return false }
            refused = response
            return true
        })
        #expect(refused?.headers["retry-after"] == "1" && refused?.headers["connection"]?.lowercased() == "close")
        #expect(stopped.wait(timeout: .now() + 0.5) == .timedOut, "it waits for the admitted request")
        handler.release.signal()
        #expect(try slow.readResponse().status == 200)
        #expect(stopped.wait(timeout: .now() + 20) == .success)
        // Closed, not just unanswered: a listening socket left open would still complete the connection.
        #expect(throws: HTTPClientError.self, "the port is closed") { try TestConnection(port: server.port, timeout: 2) }
    }

    /// Stopping while clients keep connecting never aborts the process. Debian's libmicrohttpd
    /// 0.9.75 panics when `MHD_quiesce_daemon` and an epoll worker both remove the listening
    /// socket from the worker's epoll set (docs/reliability.md, "Stopping without quiescing"); the
    /// server no longer quiesces. Each round stops a server of four workers under churn.
    @Test func stoppingWhileClientsConnectNeverAborts() throws {
        for _ in 0..<Self.churnRounds {
            let handler = GatedHandler()
            var options = HTTPServerOptions()
            options.port = 0
            options.threads = 4
            let server = try RunningServer(HTTPServer(handler: handler, options: options))
            let answered = Atomic<Int>(0)
            let done = Atomic<Bool>(false)
            let finished = DispatchSemaphore(value: 0)
            let clients = 3
            for _ in 0..<clients {
                Thread {
                    while !done.load(ordering: .acquiring) {
                        guard let connection = try? TestConnection(port: server.port, timeout: 5) else { continue }
                        if (try? connection.request("GET", "/fast"))?.status == 200 { answered.add(1, ordering: .relaxed) }
                        connection.close()
                    }
                    finished.signal()
                }.start()
            }
            #expect(eventually(timeout: 30) { answered.load(ordering: .relaxed) >= 10 })
            server.stop()
            done.store(true, ordering: .releasing)
            for _ in 0..<clients { #expect(finished.wait(timeout: .now() + 30) == .success) }
            #expect(throws: HTTPClientError.self, "the port is closed") { try TestConnection(port: server.port, timeout: 2) }
        }
    }

    static let churnRounds = 50

    /// While it drains, a new connection is closed before any request is read: nothing is admitted.
    @Test func aConnectionOpenedWhileItDrainsIsClosedUnanswered() throws {
        let draining = try Draining()
        defer { draining.close() }
        let (handler, server, slow, keptAlive, stopped) = (draining.handler, draining.server, draining.slow, draining.keptAlive, draining.stopped)
        // Draining once the kept-alive connection is refused.
        #expect(eventually(timeout: 20) { (try? keptAlive.request("GET", "/fast"))?.status == 503 })
        for _ in 0..<3 {
            // The kernel may complete the handshake; the server then closes it unread.
            guard let late = try? TestConnection(port: server.port, timeout: 10) else { continue }
            defer { late.close() }
            do {
                let response = try late.request("GET", "/fast")
                Issue.record("a connection opened while draining was answered \(response.status)")
            } catch {
                // Closed at once, not left waiting in the listen queue until the stop.
                #expect(error.code == .closed || error.code == .sendFailed, "\(error.code)")
            }
        }
        handler.release.signal()
        #expect(try slow.readResponse().status == 200)
        #expect(stopped.wait(timeout: .now() + 20) == .success)
    }

    @Test func aRequestStillUnansweredAtTheDeadlineGets503() throws {
        let handler = GatedHandler()
        let server = try Self.server(handler, drainSeconds: 0.5)
        let slow = try TestConnection(port: server.port, timeout: 30)
        defer { slow.close() }
        try slow.send(httpRequestHead("GET", "/slow", headers: [:], contentLength: nil))
        handler.arrived.wait()
        server.stop()
        let response = try slow.readResponse()
        #expect(response.status == 503 && response.headers["retry-after"] == "1")
        handler.release.signal()
    }
}
