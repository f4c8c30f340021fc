import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireServer
import TapwireStore
import TapwireTestSupport

/// PostgreSQL stops while clients post, then comes back: 503 with Retry-After meanwhile, no
/// crash, recovery without restarting the collector, and every 200 really stored.
@Suite(.serialized) struct DatabaseOutageTests {
    @Test func stopAndRestartPostgresWhileClientsPost() throws {
        let cluster = try PrivateCluster.make(durable: true)
        try cluster.start()
        defer { try? cluster.removeData() }
        try cluster.createDatabase("tapwire")
        let url = cluster.url(database: "tapwire")
        let setup = try PostgresConnection(url: url)
        try Migrator().migrate(setup)
        let app = try AppStore().createApp(named: "outage", on: setup)
        setup.close()

        var configuration = CollectorConfiguration(databaseURL: url)
        configuration.http.port = 0
        configuration.readerThreads = 2
        let collector = Collector(configuration: configuration, logger: Logger(label: "test", sink: .memory()))
        try collector.start()
        defer { collector.stop() }
        let client = HTTPTestClient(port: collector.port)

        let acknowledged = Mutex<Set<EventID>>([])
        let statuses = Mutex<[Int: Int]>([:])
        let retryAfterSeen = Atomic<Bool>(false)
        let running = Atomic<Bool>(true)
        let done = DispatchGroup()
        for _ in 0..<3 {
            done.enter()
            Thread {
                defer { done.leave() }
                while running.load(ordering: .relaxed) {
                    let ids = (0..<20).map { _ in EventID.v7(at: .now) }
                    let body = TestBatch.body(ids.map { TestBatch.event(id: $0) })
                    guard let response = try? client.post("/v1/batch", key: app.writeKey.text, json: body) else { continue }
                    statuses.withLock { $0[response.status, default: 0] += 1 }
                    if response.status == 200 { acknowledged.withLock { $0.formUnion(ids) } }
                    if response.status == 503 {
                        if response.headers["retry-after"].flatMap(Int.init) ?? 0 >= 1, response.errorCode == "database_unavailable" {
                            retryAfterSeen.store(true, ordering: .relaxed)
                        }
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                }
            }.start()
        }
        // Waits for what each phase must show, not for a stretch of time: a loaded machine posts
        // fewer batches a second (docs/testing.md). 120 s are hang guards.
        #expect(eventually(timeout: 120) { statuses.withLock { $0[200] ?? 0 } > 0 }, "batches stored before the outage")
        try cluster.stop()
        #expect(eventually(timeout: 120) { statuses.withLock { $0[503] ?? 0 } > 0 && retryAfterSeen.load(ordering: .relaxed) })
        let duringOutage = statuses.withLock { $0[503] ?? 0 }
        #expect(try client.get("/healthz").status == 200)
        #expect(try client.get("/readyz").status == 503)
        try cluster.start()
        // Recovery without restarting the collector.
        let recovered = try eventually(timeout: 120) {
            let response = try client.post("/v1/batch", key: app.writeKey.text, json: TestBatch.body([TestBatch.event()]))
            return response.status == 200
        }
        Thread.sleep(forTimeInterval: 0.5)
        running.store(false, ordering: .relaxed)
        done.wait()

        #expect(recovered)
        #expect(duringOutage > 0)
        let sawRetryAfter = retryAfterSeen.load(ordering: .relaxed)
        #expect(sawRetryAfter)
        #expect(statuses.withLock { $0[500] ?? 0 } == 0)
        let check = try PostgresConnection(url: url)
        defer { check.close() }
        let stored = Set(try check.query("SELECT event_id FROM events").rows.compactMap { $0[0].flatMap(EventID.init) })
        let acked = acknowledged.withLock { $0 }
        #expect(!acked.isEmpty)
        #expect(acked.isSubset(of: stored), "\(acked.subtracting(stored).count) acknowledged events are missing")
    }
}
