import Foundation
import Testing
import TapwireCore
import TapwireStore
import TapwireTestSupport
import Synchronization

/// The highly available deployment of docs/high-availability.md, for real: a primary with a
/// synchronous streaming standby, and a collector whose URL names both with
/// `target_session_attrs=read-write`. What an acknowledgement must survive is checked against
/// what the promoted server holds.
@Suite(.serialized) struct FailoverTests {
    static func setUp(_ cluster: ReplicatedCluster) throws -> (writeKey: String, appName: String) {
        try cluster.primary.createDatabase("tapwire")
        let primary = cluster.primary.url(database: "tapwire")
        let migrated = try TapwireBinary.run(["migrate", "--database-url", primary])
        try #require(migrated.status == 0, "\(migrated.output)")
        let created = try TapwireBinary.run(["apps", "create", "shop", "--format", "json", "--database-url", primary])
        try #require(created.status == 0, "\(created.output)")
        let keys = try JSONParser().parse(created.output.trimmingCharacters(in: .whitespacesAndNewlines))
        return (try #require(keys["writeKey"]?.stringValue), "shop")
    }

    /// The primary killed mid-load and the standby promoted: every acknowledged id is on the
    /// promoted server once, nothing is there that was not posted, its rollups equal a rebuild,
    /// and the same collector, not restarted, stores again within 30 s.
    @Test func killingThePrimaryMidLoadLosesNoAcknowledgedEvent() throws {
        let cluster = try ReplicatedCluster.start(synchronous: true)
        defer { cluster.stop() }
        let (writeKey, _) = try Self.setUp(cluster)
        let collector = try TapwireBinary.serve(databaseURL: cluster.multiHostURL(database: "tapwire"))
        defer { _ = collector.interrupt() }
        let load = AcknowledgedLoad(ports: [collector.port], writeKey: writeKey)
        #expect(eventually(timeout: 60) { load.acknowledgedCount >= 2000 })

        try cluster.killPrimary()
        try cluster.promoteStandby()
        let promoted = monotonicNanoseconds()
        let storingAgain = eventually(timeout: 30, poll: 0.1) { load.lastAcknowledgement > promoted }
        #expect(storingAgain, "no batch acknowledged within 30 s of the promotion: \(collector.log.suffix(2000))")
        let afterPromotion = load.acknowledgedCount
        #expect(eventually(timeout: 30) { load.acknowledgedCount >= afterPromotion + 500 })
        let summary = load.stop()
        #expect(summary.onlyRetryableFailures, "\(summary.failures)")

        let promotedServer = try PostgresConnection(url: cluster.standby.url(database: "tapwire"))
        defer { promotedServer.close() }
        let stored = try promotedServer.query("SELECT event_id::text FROM events").rows.compactMap { $0[0] }
        #expect(stored.count == Set(stored).count, "an event stored twice")
        let missing = summary.acknowledged.subtracting(stored)
        #expect(missing.isEmpty, "\(missing.count) of \(summary.acknowledged.count) acknowledged ids are not on the promoted server")
        #expect(Set(stored).isSubset(of: summary.posted))

        // The rollups the commits (and their folds) wrote equal a rebuild from the events.
        try RollupStore().foldBeforeReading(on: promotedServer)
        let appId = try #require(Int64(try promotedServer.query("SELECT app_id FROM apps WHERE name = 'shop'").scalar ?? ""))
        let committed = try RollupSnapshot.rows(appId: appId, on: promotedServer)
        #expect(try RollupSnapshot.recomputedByOracle(appId: appId, on: promotedServer) == committed)
    }

    /// The collector's batch writers whose COMMIT waits for the synchronous standby. Only the
    /// writers: the collector's fold and findings monitor commit too, and theirs wait the same
    /// way whenever they fall while the standby is down.
    static let writersWaiting = """
        SELECT pid FROM pg_stat_activity WHERE datname = 'tapwire' AND application_name = 'tapwire-writer' AND wait_event = 'SyncRep'
        """

    /// A connection lost while its COMMIT waits (here: for the synchronous standby, which is
    /// stopped) leaves the outcome unknown to the collector: the batch is answered 503 with
    /// Retry-After, never 200, although the primary did commit it; the retry is exact.
    ///
    /// Another commit of the database waits for the standby beside it, as the collector's fold
    /// or findings monitor does when its commit falls in this window. This test once failed with
    /// no answer at all: it terminated whichever backend waited first, which could be the
    /// findings monitor's while the batch's COMMIT had not got there yet; that COMMIT then
    /// waited for good, and the client gave up after its 30 s. Now only the writer's backend is
    /// terminated, and the client waits longer than the test allows for the COMMIT to wait.
    @Test func aCommitInDoubtIsAnswered503AndItsRetryIsExact() throws {
        let cluster = try ReplicatedCluster.start(synchronous: true)
        defer { cluster.stop() }
        let (writeKey, _) = try Self.setUp(cluster)
        let primary = cluster.primary.url(database: "tapwire")
        let collector = try TapwireBinary.serve(databaseURL: primary)
        defer { _ = collector.interrupt() }
        // Warm: the partitions exist, so the next batch's only waiting is its COMMIT.
        #expect(try collector.client.post("/v1/batch", key: writeKey, json: TestBatch.body([TestBatch.event()])).status == 200)

        try cluster.standby.stop()
        let admin = try PostgresConnection(url: cluster.primary.url())
        defer { admin.close() }
        // The bystander: a transaction that writes (a temporary table's catalog rows) commits,
        // and waits for the standby until it is back.
        Thread {
            guard let bystander = try? PostgresConnection(url: primary, applicationName: "tapwire-test-bystander") else { return }
            _ = try? bystander.query("CREATE TEMPORARY TABLE bystander (x int)")
            bystander.close()
        }.start()
        let bystanderWaits = "SELECT 1 FROM pg_stat_activity WHERE application_name = 'tapwire-test-bystander' AND wait_event = 'SyncRep'"
        #expect(eventually(timeout: 30) { (try? admin.query(bystanderWaits).rows.isEmpty) == false })

        let body = TestBatch.body((0..<25).map { _ in TestBatch.event() })
        let answer = Mutex<TestResponse?>(nil)
        let posted = DispatchSemaphore(value: 0)
        Thread {
            let response = try? HTTPTestClient(port: collector.port).post("/v1/batch", key: writeKey, json: body, timeout: 120)
            answer.withLock { $0 = response }
            posted.signal()
        }.start()
        #expect(eventually(timeout: 30) { (try? admin.query(Self.writersWaiting).rows.isEmpty) == false })
        try admin.query("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = 'tapwire' AND application_name = 'tapwire-writer' AND wait_event = 'SyncRep'
            """)
        #expect(posted.wait(timeout: .now() + 60) == .success)
        let response = try #require(answer.withLock { $0 })
        #expect(response.status == 503, "\(response.status) \(response.text)")
        #expect(response.headers["retry-after"] != nil)
        // The primary committed it locally all the same.
        let check = try PostgresConnection(url: primary)
        defer { check.close() }
        #expect(try check.query("SELECT count(*) FROM events").scalar == "26")

        try cluster.standby.start()
        let retried = try eventually(timeout: 30) { try collector.client.post("/v1/batch", key: writeKey, json: body).status == 200 }
        #expect(retried)
        let again = try collector.client.post("/v1/batch", key: writeKey, json: body)
        #expect(again.status == 200 && again.json?["duplicates"]?.numberValue?.integer == 25, "\(again.text)")
        #expect(try check.query("SELECT count(*), count(DISTINCT event_id) FROM events").rows.first == ["26", "26"])
    }

    /// docs/high-availability.md: while the synchronous standby is down, commits wait; the
    /// collector's queue fills and new batches get 503 `overloaded` with Retry-After (nothing of
    /// them stored), and once the standby is back every batch that was waiting is stored and 200.
    @Test func whileTheSynchronousStandbyIsDownTheQueueFillsAndBatchesGet503() throws {
        let cluster = try ReplicatedCluster.start(synchronous: true)
        defer { cluster.stop() }
        let (writeKey, _) = try Self.setUp(cluster)
        let primary = cluster.primary.url(database: "tapwire")
        // One writer, and room for two batches of 100 waiting behind its commit.
        let collector = try TapwireBinary.serve(databaseURL: primary, extraArguments: ["--writers", "1", "--max-queued-events", "200"])
        defer { _ = collector.interrupt() }
        #expect(try collector.client.post("/v1/batch", key: writeKey, json: TestBatch.body([TestBatch.event()])).status == 200)

        try cluster.standby.stop()
        let answers = Mutex<[(ids: [String], response: TestResponse?)]>([])
        let done = DispatchGroup()
        func post() {
            let events = (0..<100).map { _ in TestBatch.event() }
            let ids = events.compactMap { $0["eventId"]?.stringValue }
            done.enter()
            Thread {
                let response = try? HTTPTestClient(port: collector.port).post("/v1/batch", key: writeKey, json: TestBatch.body(events),
                                                                             timeout: 120)
                answers.withLock { $0.append((ids, response)) }
                done.leave()
            }.start()
        }
        // The first batch's COMMIT waits for the standby, holding the only writer…
        post()
        let admin = try PostgresConnection(url: cluster.primary.url())
        defer { admin.close() }
        #expect(eventually(timeout: 30) { (try? admin.query(Self.writersWaiting).rows.isEmpty) == false })
        // …so of six more, the queue takes what fits and the rest are refused at once.
        for _ in 0..<6 { post() }
        let refusedAtOnce = eventually(timeout: 30) { answers.withLock { $0.count } >= 4 }
        #expect(refusedAtOnce, "batches kept waiting instead of being refused: \(collector.log.suffix(1500))")
        let early = answers.withLock { $0 }
        #expect(early.allSatisfy { $0.response?.status == 503 && $0.response?.json?["error"]?["code"]?.stringValue == "overloaded" })
        #expect(early.allSatisfy { $0.response?.headers["retry-after"] != nil })

        try cluster.standby.start()
        #expect(done.wait(timeout: .now() + 60) == .success)
        let all = answers.withLock { $0 }
        let acknowledged = all.filter { $0.response?.status == 200 }
        #expect(all.allSatisfy { $0.response?.status == 200 || $0.response?.status == 503 })
        #expect(acknowledged.count >= 1 && acknowledged.count + early.count == 7)
        let check = try PostgresConnection(url: primary)
        defer { check.close() }
        let stored = Set(try check.query("SELECT event_id::text FROM events").rows.compactMap { $0[0] })
        for answer in all {
            let kept = answer.ids.filter(stored.contains).count
            #expect(kept == (answer.response?.status == 200 ? 100 : 0), "a batch answered \(answer.response?.status ?? 0) has \(kept) of 100 events stored")
        }
    }
}
