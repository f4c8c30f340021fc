import Foundation
import Synchronization
import TapwireStatistics
import Testing
import TapwireCore
import TapwireLoopbackClient
@testable import TapwireServer
import TapwireTestSupport

/// The upload watchdog charges a client only for time in which it owed bytes (`UploadAccount`).
@Suite struct UploadAccountTests {
    let second: UInt64 = 1_000_000_000

    func account(wireEnd: UInt64? = 1_200) -> UploadAccount {
        UploadAccount(now: 0, stallLimit: 10 * second, deadline: 60 * second, wireEnd: wireEnd)
    }

    /// The flaky 408: every byte had arrived, and the collector sat on them for 20 s.
    @Test func aBodyThatHasArrivedIsNeverChargedHoweverLongTheCollectorTakes() {
        var upload = account()
        #expect(upload.look(now: second / 4, received: 1_200, unreadBytes: 0, excused: 0) == .received)
        var later = account()
        #expect(later.look(now: 20 * second, received: 1_200, unreadBytes: 0, excused: 0) == .received)
        #expect(later.look(now: 90 * second, received: 5_000, unreadBytes: 0, excused: 0) == .received) // pipelined bytes after it
    }

    @Test func aClientThatStopsSendingIsStalledAfterTheLimit() {
        var upload = account()
        var now: UInt64 = 0
        var verdict = UploadAccount.Verdict.receiving
        while verdict == .receiving, now < 30 * second {
            now += second / 4
            verdict = upload.look(now: now, received: 300, unreadBytes: 0, excused: 0)
        }
        #expect(verdict == .stalled)
        #expect(now > 10 * second && now <= 10 * second + second / 4)
    }

    /// Slowloris: a byte now and then never stalls, but the deadline still ends it, on time.
    @Test func aTricklingClientIsLateAtTheDeadline() {
        var upload = account()
        var now: UInt64 = 0
        var received: UInt64 = 300
        var verdict = UploadAccount.Verdict.receiving
        while verdict == .receiving, now < 120 * second {
            now += second / 4
            received += 1
            verdict = upload.look(now: now, received: received, unreadBytes: 0, excused: 0)
        }
        #expect(verdict == .late)
        #expect(now > 60 * second && now <= 60 * second + second / 4)
    }

    /// Bytes waiting unread mean the collector is behind (and may have closed the client's TCP
    /// window): that time is not the client's.
    @Test func unreadBytesAreTheCollectorsTimeNotTheClients() {
        var upload = account()
        var now: UInt64 = 0
        for _ in 0..<400 { // 100 s
            now += second / 4
            #expect(upload.look(now: now, received: 900, unreadBytes: 600, excused: 0) == .receiving)
        }
        #expect(upload.owedNanoseconds == 0)
        // Then the collector drains them and the client really stops: 10 s more, not 0.
        var verdict = UploadAccount.Verdict.receiving
        let drained = now
        while verdict == .receiving {
            now += second / 4
            verdict = upload.look(now: now, received: 900, unreadBytes: 0, excused: 0)
        }
        #expect(verdict == .stalled)
        #expect(now - drained > 10 * second)
    }

    @Test func deliveriesCountAsProgressWhenTheKernelCannotTell() {
        var upload = account(wireEnd: nil)
        var now: UInt64 = 0
        for _ in 0..<100 {
            now += second / 4
            upload.delivered(now: now)
            #expect(upload.look(now: now, received: nil, unreadBytes: 0, excused: 0) == .receiving)
        }
        now += 11 * second
        #expect(upload.look(now: now, received: nil, unreadBytes: 0, excused: 0) == .stalled)
    }

    /// A chunked body's end is unknown: kernel progress still counts, but it is never `.received`.
    @Test func withoutAKnownEndKernelProgressStillCounts() {
        var upload = account(wireEnd: nil)
        var now: UInt64 = 0
        for step in 0..<100 {
            now += second / 4
            #expect(upload.look(now: now, received: UInt64(1_000 + step), unreadBytes: 0, excused: 0) == .receiving)
        }
        now += 11 * second
        #expect(upload.look(now: now, received: 1_099, unreadBytes: 0, excused: 0) == .stalled)
    }

    @Test func aPauseOfTheCollectorIsExcused() {
        var upload = account()
        #expect(upload.look(now: second, received: 300, unreadBytes: 0, excused: 0) == .receiving)
        // 30 s pause, all excused but one interval.
        #expect(upload.look(now: 31 * second, received: 300, unreadBytes: 0, excused: 30 * second - second / 4) == .receiving)
        #expect(upload.owedNanoseconds < 2 * second)
    }

    @Test func theWireEndOfARequestCountsItsHeadAndBody() {
        func head(_ headers: [String: String]) -> RequestHead {
            RequestHead(method: "POST", path: "/v1/batch", query: [:], headers: headers)
        }
        #expect(wireEnd(start: 1_000, headBytes: 150, head: head(["content-length": "850"])) == 2_000)
        #expect(wireEnd(start: 0, headBytes: 80, head: head([:])) == 80)
        #expect(wireEnd(start: 0, headBytes: 80, head: head(["content-length": "12", "transfer-encoding": "chunked"])) == nil)
        #expect(wireEnd(start: nil, headBytes: 80, head: head(["content-length": "12"])) == nil)
        #expect(wireEnd(start: 0, headBytes: 0, head: head(["content-length": "12"])) == nil)
        #expect(wireEnd(start: 0, headBytes: 80, head: head(["content-length": "twelve"])) == nil)
    }
}

/// The header deadline as the watchdog applies it to one connection (`OpenConnection.State`).
@Suite struct HeaderDeadlineTests {
    let second: UInt64 = 1_000_000_000

    /// One look at a connection waiting since `since` (nil: a request in progress); returns
    /// how long it has waited if overdue, and what the look left of its wait.
    func look(since: UInt64?, now: UInt64, excused: UInt64 = 0) -> (overdue: UInt64?, waitingSince: UInt64?) {
        var connection = OpenConnection.State(socket: -1, waitingSince: since)
        let overdue = connection.overdueWait(now: now, excused: excused, deadline: 30 * second)
        return (overdue, connection.waitingSince)
    }

    @Test func aConnectionIsOverdueOnlyPastTheDeadline() {
        #expect(look(since: 100 * second, now: 130 * second).overdue == nil)
        #expect(look(since: 100 * second, now: 130 * second + 1).overdue == 30 * second + 1)
        #expect(look(since: nil, now: 1_000 * second).overdue == nil)
    }

    /// The lost answers of `tapwire-bench ingest --apps 50`: a sweep reads the clock, then a
    /// request on the connection is answered before the sweep takes its lock. The wait began
    /// after the sweep's `now`; with wrap-around subtraction it looked 584 years old.
    @Test func aWaitThatBeganAfterTheSweepsClockIsNotOverdue() {
        #expect(look(since: 100 * second + 5, now: 100 * second) == (nil, 100 * second + 5))
        #expect(look(since: 100 * second + 5, now: 100 * second, excused: 20 * second) == (nil, 100 * second + 5))
    }

    @Test func aPauseOfTheCollectorIsExcused() {
        // 40 s since, 20 s of it the collector was not running: 20 s waited.
        #expect(look(since: 0, now: 40 * second, excused: 20 * second) == (nil, 20 * second))
        #expect(look(since: 0, now: 51 * second, excused: 20 * second) == (31 * second, 20 * second))
        // The excuse never moves a wait past now.
        #expect(look(since: 39 * second, now: 40 * second, excused: 20 * second) == (nil, 40 * second))
    }
}

/// The watchdog on a real libmicrohttpd server over loopback, with a handler that keeps the
/// collector busy the way a slow commit or a slow decode does.
@Suite(.serialized) struct UploadWatchdogHTTPTests {
    /// `/block` holds the HTTP thread that runs it for `blockSeconds` (a handler doing slow work
    /// synchronously); `/slow` answers `blockSeconds` later from another thread (a suspended
    /// connection waiting on a commit); anything else echoes the body's size.
    struct BusyHandler: HTTPHandler {
        let blockSeconds: Double

        func admit(_ head: RequestHead) -> Admission {
            .accept(BodyPolicy(maxWireBytes: 8 << 20, maxDecodedBytes: 8 << 20), Responder(label: head.path) { request, respond in
                handle(request, respond: respond)
            })
        }

        func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
            let answer = HTTPResponse.json(200, ["bytes": .int(request.body.count)])
            switch request.path {
            case "/block":
                Thread.sleep(forTimeInterval: blockSeconds)
                respond(answer)
            case "/slow":
                DispatchQueue.global().asyncAfter(deadline: .now() + blockSeconds) { respond(answer) }
            default:
                respond(answer)
            }
        }

        func completed(_ head: RequestHead, label: String?, status: Int, annotations: [String: Int], nanoseconds: UInt64) {}
    }

    static func server(threads: Int, stalledSeconds: Int = 1, deadlineSeconds: Int = 60, blockSeconds: Double = 3) throws -> RunningServer {
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = threads
        options.stalledUploadSeconds = stalledSeconds
        options.uploadDeadlineSeconds = deadlineSeconds
        return try RunningServer(HTTPServer(handler: BusyHandler(blockSeconds: blockSeconds), options: options))
    }

    static func post(_ path: String, _ body: [UInt8]) -> [UInt8] {
        httpRequestHead("POST", path, headers: [:], contentLength: body.count) + body
    }

    static func body(_ count: Int) -> [UInt8] {
        var rng = SeededGenerator(seed: UInt64(count))
        return (0..<count).map { _ in UInt8.random(in: 32...126, using: &rng) }
    }

    /// Every HTTP thread is busy for 3 s (stall limit 1 s) while clients send whole bodies at
    /// once, small and large: each is answered 200, none 408.
    @Test func wholeBodiesSentWhileEveryHTTPThreadIsBusyAreNot408() throws {
        let server = try Self.server(threads: 1)
        defer { server.stop() }
        let blocker = try TestConnection(port: server.port, timeout: 20)
        defer { blocker.close() }
        try blocker.send(Self.post("/block", Array("x".utf8)))
        Thread.sleep(forTimeInterval: 0.3)
        let sizes = [100, 20_000, 300_000, 2_000_000]
        let statuses = Mutex<[Int: Int]>([:])
        let group = DispatchGroup()
        for size in sizes {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let connection = try TestConnection(port: server.port, timeout: 20)
                    defer { connection.close() }
                    try connection.send(Self.post("/echo", Self.body(size)))
                    let response = try connection.readResponse()
                    statuses.withLock { $0[size] = response.status }
                } catch {
                    statuses.withLock { $0[size] = -1 }
                }
            }.start()
        }
        group.wait()
        #expect(try blocker.readResponse().status == 200)
        #expect(statuses.withLock { $0 } == Dictionary(uniqueKeysWithValues: sizes.map { ($0, 200) }))
    }

    /// Requests pipelined on one connection behind one whose answer takes 3 s: the bodies behind
    /// it are in the collector's hands, not owed, and each is answered 200 in order.
    @Test func pipelinedBodiesBehindASlowAnswerAreNot408() throws {
        let server = try Self.server(threads: 2)
        defer { server.stop() }
        let connection = try TestConnection(port: server.port, timeout: 20)
        defer { connection.close() }
        try connection.send(Self.post("/slow", Self.body(10)) + Self.post("/echo", Self.body(30_000)) + Self.post("/block", Self.body(50_000))
                            + Self.post("/echo", Self.body(70_000)))
        var statuses: [Int] = []
        var sizes: [Int] = []
        for _ in 0..<4 {
            let response = try connection.readResponse()
            statuses.append(response.status)
            sizes.append(Int(response.json?["bytes"]?.numberValue?.integer ?? -1))
        }
        #expect(statuses == [200, 200, 200, 200])
        #expect(sizes == [10, 30_000, 50_000, 70_000])
    }

    /// A sweep that read the clock, then looks at a connection that started waiting for its
    /// next request's headers after that (the watchdog thread descheduled between the two, as on
    /// a loaded machine): one whose request was answered in between, or one accepted in between.
    /// The connection stays open and its next request is answered. Before the fix the sweep
    /// shut it down, and that request got no response.
    @Test(arguments: [true, false]) func aConnectionThatStartedWaitingAfterASweepReadTheClockStaysOpen(answeredBetween: Bool) throws {
        let server = try Self.server(threads: 2)
        defer { server.stop() }
        var sweepClock = monotonicNanoseconds()
        let connection = try TestConnection(port: server.port, timeout: 10)
        defer { connection.close() }
        if answeredBetween {
            sweepClock = monotonicNanoseconds()
            try connection.send(Self.post("/echo", Self.body(100)))
            #expect(try connection.readResponse().status == 200)
        }
        // Accepted, or its request completed: waiting for the next headers, since after sweepClock.
        #expect(eventually { server.server.watchdog.connectionsAwaitingHeaders == 1 })
        server.server.watchdog.sweep(now: sweepClock)
        try connection.send(Self.post("/echo", Self.body(300)))
        #expect(try connection.readResponse().json?["bytes"]?.numberValue?.integer == 300)
    }

    /// The stream offsets stay exact over a keep-alive connection: after several whole requests,
    /// one that stops short of its Content-Length still gets 408 at the stall limit.
    @Test func aStallAfterManyKeepAliveRequestsIsStill408() throws {
        let server = try Self.server(threads: 2)
        defer { server.stop() }
        let connection = try TestConnection(port: server.port, timeout: 20)
        defer { connection.close() }
        for size in [0, 1, 999, 40_000] {
            try connection.send(Self.post("/echo", Self.body(size)))
            #expect(try connection.readResponse().status == 200)
        }
        try connection.send(httpRequestHead("GET", "/echo", headers: [:], contentLength: nil))
        #expect(try connection.readResponse().status == 200)
        let started = Date()
        try connection.send(httpRequestHead("POST", "/echo", headers: [:], contentLength: 5_000) + Self.body(4_999))
        let response = try connection.readResponse()
        #expect(response.status == 408)
        #expect(response.json?["error"]?["code"]?.stringValue == "request_timeout")
        #expect(Date().timeIntervalSince(started) < 6)
    }
}
