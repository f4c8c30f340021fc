import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import TapwireClient

/// The client driver over real HTTP on loopback (URLSession → LoopbackServer).
@Suite(.serialized) struct ClientTests {
    static let fastRetry = RetryPolicy(baseDelay: 0.01, maxDelay: 0.05, maxRetryAfter: 0.2, retryAfterJitter: 0.1)

    static func makeClient(_ dir: URL, _ url: URL, batch: BatchPolicy = BatchPolicy(), maxQueueBytes: Int = 8 << 20,
                           clock: @escaping @Sendable () -> Date = { Date() },
                           onRejected: (@Sendable ([RejectedEvent]) -> Void)? = nil) throws -> TapwireClient {
        try TapwireClient(configuration: TapwireConfiguration(
            writeKey: "wk_test", endpoint: url, queueDirectory: dir,
            device: DeviceInfo(appVersion: "3.2.1", build: "412", platform: "iOS", osVersion: "18.1"),
            batch: batch, retry: fastRetry, maxQueueBytes: maxQueueBytes, onRejected: onRejected), clock: clock)
    }

    static func response(_ i: Int) -> NotificationResponseValues {
        NotificationResponseValues(actionIdentifier: i % 3 == 0 ? "reply" : SystemActionIdentifier.open, notificationId: "n\(i)",
                                   deliveryDate: Date(timeIntervalSince1970: 1_796_119_000),
                                   content: NotificationContentValues(categoryIdentifier: "message"),
                                   userTextLength: i % 3 == 0 ? i : nil)
    }

    @Test func flushPostsGzipWithBasicAuthAndSentAtOfTheSend() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let now = Locked(Date(timeIntervalSince1970: 1_796_119_205.120))
        let client = try Self.makeClient(dir, collector.url, clock: { now.withLock { $0 } })
        let first = try client.recordResponse(Self.response(0), registeredCategories: ["message"])
        let second = try client.recordDelivery(NotificationContentValues(categoryIdentifier: "message", attachments: [AttachmentValues(typeIdentifier: "public.png")]),
                                               notificationId: "n1")
        #expect(first < second)
        now.withLock { $0 = Date(timeIntervalSince1970: 1_796_119_265.5) }  // one minute later
        let report = await client.flush()
        #expect(report.accepted == 2)
        #expect(report.remaining == 0)
        #expect(report.requests == 1)

        let request = try #require(collector.server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/batch")
        #expect(request.headers["content-encoding"] == "gzip")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["authorization"] == "Basic d2tfdGVzdDo=")
        #expect(request.body.starts(with: [0x1f, 0x8b]))
        let body = try #require(request.json)
        #expect(body["sentAt"] as? String == "2026-12-01T10:01:05.500Z")
        let context = try #require(body["context"] as? [String: Any])
        #expect(context["appVersion"] as? String == "3.2.1")
        #expect(context["sdk"] as? String == "tapwire-swift/1.0")
        // The install id the client generated (docs/SDK.md, "The install id").
        #expect(context["deviceId"] as? String == client.installId)
        #expect(client.installId != nil)
        let events = try #require(body["events"] as? [[String: Any]])
        #expect(events.map { $0["eventId"] as? String } == [first.description, second.description])
        #expect(events[0]["timestamp"] as? String == "2026-12-01T10:00:05.120Z")
        #expect(events[0]["categoryRegistered"] as? Bool == true)
        #expect(events[1]["mediaTypes"] as? [String] == ["image"])
        #expect(client.stats.count == 0)
    }

    @Test func aServerDownForAWhileThenRecoveredGetsEverythingOnce() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        collector.state.withLock { $0.script = [(503, "0"), (503, "1"), (500, nil), (503, nil), (429, "0"), (502, nil), (503, "0")] }
        let client = try Self.makeClient(dir, collector.url, batch: BatchPolicy(maxEvents: 40))
        var ids: [String] = []
        for i in 0..<300 { ids.append(try client.recordResponse(Self.response(i)).description) }
        let report = await client.drain(timeout: 30)
        #expect(report.remaining == 0)
        #expect(report.accepted == 300)
        let stored = collector.state.withLock { $0 }
        #expect(stored.storeOrder == ids)  // every event, once, in record order
        #expect(stored.duplicates == 0)
        #expect(stored.script.isEmpty)
        // The 503 with Retry-After: 1 was honoured (capped at maxRetryAfter = 0.2 s here).
        let sent = collector.server.requests
        try #require(sent.count == 7 + 8)
        // A retried batch carries the same ids, with a later sentAt.
        #expect(sent[0].eventIds == sent[7].eventIds)
        let firstSentAt = try #require(sent[0].json?["sentAt"] as? String)
        let retrySentAt = try #require(sent[7].json?["sentAt"] as? String)
        #expect(retrySentAt > firstSentAt)
    }

    /// A connection to the collector's port that never sends a request (another test's client
    /// reaching a port its own server freed) does not hold up this client's batches: the fake
    /// collector reads each connection on its own (LoopbackServer).
    @Test func aSilentConnectionDoesNotHoldUpTheClient() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let silent = try LoopbackServer.openConnection(port: collector.server.port)
        defer { close(silent) }
        let client = try Self.makeClient(dir, collector.url)
        for i in 0..<5 { try client.recordResponse(Self.response(i)) }
        let report = await client.drain(timeout: 5)
        #expect(report.remaining == 0)
        #expect(report.accepted == 5)
        #expect(collector.server.requests.count == 1)
    }

    @Test func networkErrorsKeepEverything() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        let deadURL = collector.url
        collector.stop()  // nothing listens on that port any more
        let client = try Self.makeClient(dir, deadURL)
        for i in 0..<5 { try client.recordResponse(Self.response(i)) }
        let report = await client.flush()
        #expect(report.waitReason == .network)
        #expect(report.remaining == 5)
        #expect(report.accepted == 0)
        // Waiting: an immediate second flush does not even try.
        #expect(await client.flush().retryIn != nil)
        client.close()

        let live = try FakeCollector()
        defer { live.stop() }
        let restarted = try Self.makeClient(dir, live.url)
        #expect(await restarted.drain(timeout: 10).accepted == 5)
    }

    @Test func tooLargeHalvesOverTheWireAndDropsOnlyAnUnsendableEvent() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        collector.state.withLock { $0.maxEvents = 7 }
        let rejected = Locked<[RejectedEvent]>([])
        let client = try Self.makeClient(dir, collector.url, batch: BatchPolicy(maxEvents: 100),
                                         onRejected: { list in rejected.withLock { $0 += list } })
        var ids: [String] = []
        for i in 0..<100 { ids.append(try client.recordResponse(Self.response(i)).description) }
        let report = await client.drain(timeout: 10)
        #expect(report.remaining == 0)
        #expect(collector.state.withLock { $0.storeOrder } == ids)
        let sizes = collector.server.requests.map { $0.eventIds.count }
        #expect(Array(sizes.prefix(5)) == [100, 50, 25, 12, 6])
        #expect(rejected.withLock { $0 }.isEmpty)

        // Now a server that refuses even one event: only that event is dropped, and reported.
        collector.state.withLock { $0.maxEvents = 0 }
        let lone = try client.recordResponse(Self.response(1))
        let lost = await client.drain(timeout: 5)
        #expect(lost.remaining == 0)
        #expect(lost.rejected.map(\.eventId) == [lone])
        #expect(rejected.withLock { $0 }.map(\.eventId) == [lone])
        #expect(rejected.withLock { $0 }.first?.code == "too_large")
    }

    @Test func perEventRejectionsDropExactlyThoseAndAreReported() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let rejected = Locked<[RejectedEvent]>([])
        let client = try Self.makeClient(dir, collector.url, onRejected: { list in rejected.withLock { $0 += list } })
        var ids: [TelemetryEventID] = []
        for i in 0..<20 { ids.append(try client.recordResponse(Self.response(i))) }
        let refused: Set<TelemetryEventID> = [ids[2], ids[11], ids[19]]
        collector.state.withLock { $0.reject = Set(refused.map(\.description)) }
        let report = await client.flush()
        #expect(report.accepted == 17)
        #expect(Set(report.rejected.map(\.eventId)) == refused)
        #expect(Set(rejected.withLock { $0 }.map(\.eventId)) == refused)
        #expect(rejected.withLock { $0 }.allSatisfy { $0.code == "invalid_field" })
        #expect(client.stats.count == 0)
        #expect(collector.state.withLock { $0.storeOrder } == ids.filter { !refused.contains($0) }.map(\.description))
    }

    @Test func unsupportedEncodingFallsBackToIdentity() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        collector.state.withLock { $0.refuseGzip = true }
        let client = try Self.makeClient(dir, collector.url)
        for i in 0..<3 { try client.recordResponse(Self.response(i)) }
        let report = await client.flush()
        #expect(report.accepted == 3)
        let sent = collector.server.requests
        #expect(sent.map { $0.headers["content-encoding"] } == ["gzip", nil])
    }

    @Test func unauthorizedKeepsTheQueue() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let client = try TapwireClient(configuration: TapwireConfiguration(
            writeKey: "wk_wrong", endpoint: collector.url, queueDirectory: dir,
            device: DeviceInfo(appVersion: "1", platform: "iOS"), retry: Self.fastRetry))
        try client.recordResponse(Self.response(0))
        let report = await client.flush()
        #expect(report.waitReason == .unauthorized)
        #expect(report.remaining == 1)
    }

    @Test func recordsFromManyThreadsWhileFlushingLoseNothing() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let client = try Self.makeClient(dir, collector.url, batch: BatchPolicy(maxEvents: 50))
        let recorded = Locked<[TelemetryEventID]>([])
        // Eight OS threads record while two tasks flush concurrently.
        let threads = (0..<8).map { t in
            Thread {
                for i in 0..<150 {
                    if let id = try? client.recordResponse(Self.response(t * 1000 + i)) { recorded.withLock { $0.append(id) } }
                }
            }
        }
        threads.forEach { $0.start() }
        async let a: Void = { for _ in 0..<20 { await client.flush(); try? await Task.sleep(for: .milliseconds(5)) } }()
        async let b: Void = { for _ in 0..<20 { await client.flush(); try? await Task.sleep(for: .milliseconds(7)) } }()
        _ = await (a, b)
        while recorded.withLock({ $0.count }) < 1200 && threads.contains(where: { !$0.isFinished }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        await client.drain(timeout: 20)
        let ids = recorded.withLock { $0 }
        #expect(ids.count == 1200)
        #expect(Set(ids).count == 1200)
        #expect(ids.allSatisfy { $0.version == 7 })
        let stored = collector.state.withLock { $0 }
        #expect(Set(stored.storeOrder) == Set(ids.map(\.description)))
        #expect(stored.storeOrder.count == 1200)
        // Queue order is id order: ids are made under the queue's lock.
        #expect(stored.storeOrder == ids.sorted().map(\.description))
    }

    @Test func queuedEventsSurviveARestart() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        var ids: [String] = []
        do {
            let client = try Self.makeClient(dir, collector.url)
            for i in 0..<10 { ids.append(try client.recordResponse(Self.response(i)).description) }
            client.close()
            #expect(throws: TapwireClientError.self) { try client.recordResponse(Self.response(99)) }
        }
        let again = try Self.makeClient(dir, collector.url)
        #expect(again.stats.count == 10)
        await again.drain(timeout: 10)
        #expect(collector.state.withLock { $0.storeOrder } == ids)
    }

    @Test func automaticFlushingSendsWhenABatchIsDue() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try FakeCollector()
        defer { collector.stop() }
        let client = try Self.makeClient(dir, collector.url, batch: BatchPolicy(maxEvents: 5, maxAge: 3600))
        client.startAutomaticFlushing(interval: 0.02)
        defer { client.stopAutomaticFlushing() }
        for i in 0..<4 { try client.recordResponse(Self.response(i)) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(collector.server.requests.isEmpty)  // not due: 4 < 5 events, and young
        try client.recordResponse(Self.response(4))
        for _ in 0..<200 where client.stats.count > 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(client.stats.count == 0)
        #expect(collector.state.withLock { $0.storeOrder.count } == 5)
    }

    @Test func queueCapDropsOldestAndCounts() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let client = try Self.makeClient(dir, URL(string: "http://127.0.0.1:9")!, maxQueueBytes: 8192)
        for i in 0..<200 { try client.recordResponse(Self.response(i)) }
        let stats = client.stats
        #expect(stats.bytes <= 8192)
        #expect(stats.count > 0)
        #expect(stats.dropped == UInt64(200 - stats.count))
    }
}
