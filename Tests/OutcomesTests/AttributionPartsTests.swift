import Dispatch
import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireStatistics
import TapwireStore
import TapwireTestSupport

/// An app's attribution in parts by install id (migration 0328; docs/outcomes.md, "Attribution in
/// parts by install id"): two connections attributing one part each of the same app, and a
/// reader's all-parts fold racing them, give the credits and rollups of one sequential fold, and
/// never wait on each other in a circle. The interleavings are forced by locks the test holds and
/// observed in pg_stat_activity: no sleeps.
@Suite(.serialized) struct AttributionPartsTests {
    static let start = Timestamp(iso8601: "2026-11-20T00:00:00Z")!

    /// A call on a thread and a connection of its own: its backend's pid once connected, and its
    /// answer (or error) once it returned.
    final class BackgroundCall: Sendable {
        private let state = Mutex<(pid: String?, answer: String?, error: String?)>((nil, nil, nil))
        private let connected = DispatchSemaphore(value: 0)
        private let done = DispatchSemaphore(value: 0)

        init(_ database: TestDatabase, _ sql: String, _ parameters: [String?]) {
            Thread { [self] in
                defer { done.signal() }
                do {
                    let connection = try database.connect()
                    defer { connection.close() }
                    let pid = try connection.query("SELECT pg_backend_pid()").scalar
                    state.withLock { $0.pid = pid }
                    connected.signal()
                    let answer = try connection.query(sql, parameters).scalar
                    state.withLock { $0.answer = answer ?? "" }
                } catch {
                    state.withLock { $0.error = "\(error)" }
                    connected.signal()
                }
            }.start()
            connected.wait()
        }

        var pid: String? { state.withLock { $0.pid } }

        /// The call's answer, or its error, once it returned.
        func wait() -> (answer: String?, error: String?) {
            done.wait()
            return state.withLock { ($0.answer, $0.error) }
        }
    }

    /// What backend `pid` waits on, once it waits on a lock (pg_stat_activity's wait_event:
    /// advisory, transactionid, tuple, speculative token…); nil if it never did within 30 s.
    static func lockWait(_ database: TestDatabase, _ pid: String?) -> String? {
        var event: String?
        _ = try? eventually(timeout: 30) {
            event = try database.query("SELECT wait_event FROM pg_stat_activity WHERE pid = $1::integer AND wait_event_type = 'Lock'",
                                       [pid]).scalar ?? nil
            return event != nil
        }
        return event
    }

    static let rowWaits: Set<String> = ["transactionid", "tuple", "speculative token"]

    /// Two apps given the same events: `sequential` folded as the collector does, `parted` with its
    /// engagement rollups and delivered changes folded but its attribution queue left whole (set
    /// aside during the fold, then put back), its rows in both parts, each device in its part.
    static func twoApps() throws -> (collector: TestCollector, sequential: CreatedApp, parted: CreatedApp) {
        let collector = try TestCollector.start {
            $0.rateLimitPerSecond = 0
            $0.findingsMonitor = false
            $0.rollupFoldMilliseconds = 3_600_000
        }
        #expect(collector.firstFoldDone())
        let database = collector.database
        let sequential = try database.createApp(), parted = try database.createApp()
        var rng = SeededGenerator(seed: 20261207)
        let batches = ConversionTraffic.batches(&rng, start: Self.start)
        let client = collector.client()
        for app in [sequential, parted] {
            for body in batches { _ = try ReportFixtures.post(client, key: app.writeKey.text, body) }
        }
        let app = String(parted.appId)
        #expect(try database.query("""
            SELECT count(*) FROM attribution_pending p, unnest(p.device_ids) d
            WHERE p.app_id = $1::bigint AND p.part <> coalesce((hashtextextended(d, 0) % 2 + 2) % 2, 0)
            """, [app]).scalar == "0", "every queued device in its part")
        #expect(try database.query("SELECT count(DISTINCT part) FROM attribution_pending WHERE app_id = $1::bigint", [app]).scalar == "2")
        try database.query("CREATE TABLE parked_attribution AS SELECT * FROM attribution_pending WHERE app_id = $1::bigint", [app])
        try database.query("DELETE FROM attribution_pending WHERE app_id = $1::bigint", [app])
        let connection = try database.connect()
        defer { connection.close() }
        try RollupStore().fold(on: connection)
        try database.query("INSERT INTO attribution_pending SELECT * FROM parked_attribution")
        #expect(try database.query("SELECT count(*) FROM conversion_credits WHERE app_id = $1::bigint", [app]).scalar == "0")
        return (collector, sequential, parted)
    }

    /// The parted app's tables are the sequential one's, row for row, and its uplift sums are
    /// those its strata give.
    static func expectSameAsSequential(_ database: TestDatabase, _ sequential: CreatedApp, _ parted: CreatedApp) throws {
        let connection = try database.connect()
        defer { connection.close() }
        #expect(try database.query("SELECT count(*) FROM attribution_pending WHERE app_id = $1::bigint", [String(parted.appId)]).scalar == "0")
        let expected = try AttributionSnapshot.rows(appId: sequential.appId, on: connection)
        let got = try AttributionSnapshot.rows(appId: parted.appId, on: connection)
        #expect(expected.count > 50 && got == expected,
                "\(Set(got.map { $0.description }).symmetricDifference(expected.map { $0.description }).sorted().prefix(20))")
        for app in [sequential, parted] {
            let sums = try ConversionUpliftSums.stored(database, app: app.appId)
            let differences = sums.differences(from: try ConversionUpliftSums.recomputed(database, app: app.appId), ("kept", "recomputed"))
            #expect(differences.isEmpty && !sums.names.isEmpty, "\(differences.joined(separator: "\n"))")
        }
    }

    /// Part 0's transaction is held open after its writes; part 1 starts beside it and gets past
    /// the attribution lock (its own part's) to wait on a rollup row part 0 wrote (a lock per app
    /// would keep it at the advisory lock); part 0 commits, part 1 finishes: the sequential tables.
    @Test func twoPartsAtOnceGiveTheSequentialFold() throws {
        let (collector, sequential, parted) = try Self.twoApps()
        defer { collector.stop() }
        let database = collector.database
        let first = try database.connect()
        defer { first.close() }
        try first.query("BEGIN")
        let changed = try RollupStore().attributePart(app: parted.appId, part: 0, on: first)
        #expect(changed > 0)
        let second = BackgroundCall(database, "SELECT tapwire_attribute_pending($1::bigint, $2::integer)", [String(parted.appId), "1"])
        let wait = Self.lockWait(database, second.pid)
        #expect(wait.map(Self.rowWaits.contains) == true, "part 1 waits on part 0's rows, not on a lock of the app: \(wait ?? "no wait")")
        try first.query("COMMIT")
        let answer = second.wait()
        #expect(answer.error == nil && (Int(answer.answer ?? "") ?? 0) > 0, "\(answer)")
        try Self.expectSameAsSequential(database, sequential, parted)
    }

    /// A reader's fold of every part races both parts. Part 1 is held (the test locks one of its
    /// queue rows) after taking its lock; the reader's all-parts call takes part 0's lock and
    /// waits for part 1's, having written nothing; part 0's worker waits for the reader. Let go,
    /// part 1 finishes, then the reader (which finds part 0's queue), then part 0 (nothing left).
    /// Were the reader to attribute part 0 before taking part 1's lock, part 1 would wait on its
    /// rows while it waits on part 1: a deadlock, which PostgreSQL ends with an error.
    @Test func aReadersFoldRacingBothPartsNeitherDeadlocksNorCountsTwice() throws {
        let (collector, sequential, parted) = try Self.twoApps()
        defer { collector.stop() }
        let database = collector.database
        let app = String(parted.appId)
        let holder = try database.connect()
        defer { holder.close() }
        try holder.query("BEGIN")
        #expect(try holder.query("SELECT count(*) FROM (SELECT FROM attribution_pending WHERE app_id = $1::bigint AND part = 1 LIMIT 1 FOR UPDATE) q",
                                 [app]).scalar == "1")
        let partOne = BackgroundCall(database, "SELECT tapwire_attribute_pending($1::bigint, $2::integer)", [app, "1"])
        #expect(Self.lockWait(database, partOne.pid) == "transactionid", "part 1 waits on the test's row lock")
        let reader = BackgroundCall(database, "SELECT tapwire_attribute_pending($1::bigint)", [app])
        #expect(Self.lockWait(database, reader.pid) == "advisory", "the reader waits for part 1's lock")
        let partZero = BackgroundCall(database, "SELECT tapwire_attribute_pending($1::bigint, $2::integer)", [app, "0"])
        #expect(Self.lockWait(database, partZero.pid) == "advisory", "part 0 waits for the reader, which holds its lock")
        try holder.query("COMMIT")
        let answers = [partOne.wait(), reader.wait(), partZero.wait()]
        #expect(answers.allSatisfy { $0.error == nil }, "\(answers)")
        #expect((Int(answers[0].answer ?? "") ?? 0) > 0 && (Int(answers[1].answer ?? "") ?? 0) > 0 && answers[2].answer == "0", "\(answers)")
        try Self.expectSameAsSequential(database, sequential, parted)
    }

    /// An older collector writes every device in part 0 (the column's default). Part 0's call
    /// that finds a device of part 1 there waits for part 1's lock before writing (without it,
    /// it would attribute that device beside part 1's worker: a wait on its rows, and a unique
    /// violation or a circle when both change one credit); the tables are the sequential fold's.
    @Test func anOlderCollectorsRowInPartZeroWaitsForTheOtherParts() throws {
        let (collector, sequential, parted) = try Self.twoApps()
        defer { collector.stop() }
        let database = collector.database
        let app = String(parted.appId)
        // Part 1's entries written again as an older collector writes them: part 0 by default.
        try database.query("""
            INSERT INTO attribution_pending (app_id, device_ids, event_times, conversions)
            SELECT app_id, device_ids, event_times, conversions FROM attribution_pending WHERE app_id = $1::bigint AND part = 1
            """, [app])
        let partOne = try database.connect()
        defer { partOne.close() }
        try partOne.query("BEGIN")
        #expect(try RollupStore().attributePart(app: parted.appId, part: 1, on: partOne) > 0)
        let partZero = BackgroundCall(database, "SELECT tapwire_attribute_pending($1::bigint, $2::integer)", [app, "0"])
        #expect(Self.lockWait(database, partZero.pid) == "advisory", "part 0 waits for part 1's lock, not on its rows")
        try partOne.query("COMMIT")
        let answer = partZero.wait()
        #expect(answer.error == nil && (Int(answer.answer ?? "") ?? 0) > 0, "\(answer)")
        try Self.expectSameAsSequential(database, sequential, parted)
    }
}
