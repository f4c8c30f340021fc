import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport
import TapwireZlib

/// When the database falls behind, the collector refuses work with 503 and Retry-After instead
/// of holding it: the write queue and the decoded request bodies are both bounded, and every
/// event it did acknowledge is stored.
@Suite(.serialized) struct BackpressureTests {
    /// The value of an unlabelled series in /metrics text.
    static func metric(_ name: String, port: Int) -> Double? {
        guard let text = try? HTTPTestClient(port: port).get("/metrics", key: nil).text else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.split(separator: " ").last ?? "")
        }
        return nil
    }

    struct Outcome {
        var statuses: [Int: Int] = [:]
        var acknowledged = Set<EventID>()
        var retryAfterOnEvery503 = true
        var codes = Set<String>()
    }

    /// `threads` posters, each with `bodies` gzip batches of `perBatch` fresh events (plus
    /// `padding` ignored bytes) built beforehand, posting them in turn for `seconds`.
    static func load(port: Int, key: String, threads: Int, bodies: Int, perBatch: Int, padding: Int = 0, seconds: Double) -> Outcome {
        let pad = padding > 0 ? Array((#","padding":""# + String(repeating: "p", count: padding) + #""}"#).utf8) : []
        let prepared: [[(ids: [EventID], gzip: [UInt8])]] = (0..<threads).map { _ in
            (0..<bodies).map { _ in
                let ids = (0..<perBatch).map { _ in EventID.v7(at: .now) }
                var body = TestBatch.body(ids.map { TestBatch.event(id: $0) })
                if !pad.isEmpty { body = Array(body.dropLast()) + pad }
                return (ids, (try? Zlib.compress(body, format: .gzip, level: 1)) ?? [])
            }
        }
        let outcome = Mutex(Outcome())
        let stop = Date().addingTimeInterval(seconds)
        let headers = ["Authorization": HTTPTestClient.basic(key), "Content-Encoding": "gzip", "Content-Type": "application/json"]
        // Threads of their own: concurrentPerform would run only as many as there are cores.
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            Thread {
            defer { done.leave() }
            let client = HTTPTestClient(port: port)
            var turn = 0
            while Date() < stop {
                let (ids, gzip) = prepared[thread][turn % bodies]
                turn += 1
                guard let response = try? client.request("POST", "/v1/batch", headers: headers, body: gzip) else { continue }
                outcome.withLock { o in
                    o.statuses[response.status, default: 0] += 1
                    if response.status == 200 { o.acknowledged.formUnion(ids) }
                    if let code = response.errorCode { o.codes.insert(code) }
                    if response.status == 503, (Int(response.headers["retry-after"] ?? "") ?? 0) < 1 { o.retryAfterOnEvery503 = false }
                }
                if response.status == 503 { Thread.sleep(forTimeInterval: 0.05) }
            }
            }.start()
        }
        done.wait()
        return outcome.withLock { $0 }
    }

    static func stored(_ database: TestDatabase) throws -> Set<EventID> {
        Set(try database.query("SELECT event_id::text FROM events").rows.compactMap { $0[0].flatMap(EventID.init) })
    }

    @Test func aSlowDatabaseGets503OverloadedAndTheQueueStaysUnderItsBound() throws {
        let server = try TestCollector.start {
            $0.writers = 1
            $0.groupCommit.maxQueuedEvents = 2000
            $0.groupCommit.maxEventsPerCommit = 500
            $0.rateLimitPerSecond = 0
        }
        let app = try server.database.createApp()
        // Every id claim sleeps 0.25 s: one writer commits at most about 2,000 events a second.
        let slow = try server.database.connect()
        defer { slow.close() }
        try slow.executeScript(SoakSQL.slowInstall)
        let deepest = Atomic<Int>(0)
        let sampling = Atomic<Bool>(true)
        let sampler = Thread {
            while sampling.load(ordering: .relaxed) {
                let depth = server.collector.queuedEvents
                if depth > deepest.load(ordering: .relaxed) { deepest.store(depth, ordering: .relaxed) }
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        sampler.start()
        let outcome = Self.load(port: server.port, key: app.writeKey.text, threads: 24, bodies: 20, perBatch: 250, seconds: 5)
        sampling.store(false, ordering: .relaxed)
        try slow.executeScript(SoakSQL.slowRemove)
        #expect(outcome.statuses[200, default: 0] > 0)
        #expect(outcome.statuses[503, default: 0] > 0, "never overloaded: \(outcome.statuses), deepest \(deepest.load(ordering: .relaxed))")
        #expect(Set(outcome.statuses.keys).isSubset(of: [200, 503]), "\(outcome.statuses)")
        #expect(outcome.codes == ["overloaded"])
        #expect(outcome.retryAfterOnEvery503)
        #expect(deepest.load(ordering: .relaxed) <= 2000, "the queue held \(deepest.load(ordering: .relaxed)) events")
        #expect(deepest.load(ordering: .relaxed) > 0)
        let stored = try Self.stored(server.database)
        #expect(outcome.acknowledged.isSubset(of: stored), "\(outcome.acknowledged.subtracting(stored).count) acknowledged events are missing")
        // Once the database keeps up again, everything is accepted.
        #expect(try server.client().post("/v1/batch", key: app.writeKey.text, json: TestBatch.body([TestBatch.event()])).status == 200)
    }

    /// Bodies that inflate to 6 MiB each, waiting on a slow commit: without a bound, 32 of them
    /// would hold 192 MiB decoded. With a 40 MiB budget the rest get 503 and the bound holds.
    @Test func decodedBodiesAreBoundedAcrossConnections() throws {
        let server = try TestCollector.start {
            $0.writers = 1
            $0.rateLimitPerSecond = 0
            $0.http.maxBufferedBodyBytes = 40 << 20
        }
        let app = try server.database.createApp()
        let slow = try server.database.connect()
        defer { slow.close() }
        try slow.executeScript(SoakSQL.slowInstall)
        let highest = Atomic<Int>(0)
        let sampling = Atomic<Bool>(true)
        let sampler = Thread {
            while sampling.load(ordering: .relaxed) {
                let held = Int(Self.metric(CollectorMetrics.bufferedBodyBytes, port: server.port) ?? 0)
                if held > highest.load(ordering: .relaxed) { highest.store(held, ordering: .relaxed) }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        sampler.start()
        let outcome = Self.load(port: server.port, key: app.writeKey.text, threads: 32, bodies: 2, perBatch: 20, padding: 6 << 20, seconds: 5)
        sampling.store(false, ordering: .relaxed)
        try slow.executeScript(SoakSQL.slowRemove)
        #expect(outcome.statuses[200, default: 0] > 0)
        #expect(outcome.statuses[503, default: 0] > 0, "\(outcome.statuses)")
        #expect(Set(outcome.statuses.keys).isSubset(of: [200, 503]), "\(outcome.statuses)")
        #expect(outcome.codes == ["overloaded"])
        #expect(outcome.retryAfterOnEvery503)
        #expect(highest.load(ordering: .relaxed) <= 40 << 20, "held \(highest.load(ordering: .relaxed) >> 20) MiB")
        #expect(highest.load(ordering: .relaxed) >= 6 << 20)
        let stored = try Self.stored(server.database)
        #expect(outcome.acknowledged.isSubset(of: stored))
        // Everything is given back once the requests are answered.
        #expect(eventually(timeout: 5) { Self.metric(CollectorMetrics.bufferedBodyBytes, port: server.port) == 0 })
    }
}
