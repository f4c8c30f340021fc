import Dispatch
import Foundation
import Synchronization
import Testing
import TapwireCore
import TapwireServer
@testable import TapwireStore
import TapwireTestSupport

/// A report in the collector does not fold for itself: it waits for the collector's background
/// fold, one that started after its request (docs/reports.md, "A report in the collector shares
/// the fold"). Each collector here folds at start and then only when a reader wakes it (its
/// interval is an hour), so every fold counted is one a reader caused; and, unless a test says
/// otherwise, with no rest between folds (`readFoldRestMilliseconds`).
@Suite(.serialized) struct SharedFoldTests {
    /// Two days back: a whole UTC day of the 30-day report, read from the rollups alone, so only a
    /// fold makes these events count (the current quarter hour would be read from the pending
    /// deltas too).
    static let past = Timestamp.now.adding(seconds: -2 * 86_400)

    static func start(_ database: TestDatabase? = nil, readerThreads: Int = 2, waitMilliseconds: Int = 30_000,
                      restMilliseconds: Int = 0) throws -> TestCollector {
        let configure: (inout CollectorConfiguration) -> Void = {
            $0.rateLimitPerSecond = 0
            $0.findingsMonitor = false
            $0.rollupFoldMilliseconds = 3_600_000
            $0.readerThreads = readerThreads
            $0.readFoldWaitMilliseconds = waitMilliseconds
            $0.readFoldRestMilliseconds = restMilliseconds
        }
        let collector = try database.map { try TestCollector(database: $0, configure: configure) } ?? TestCollector.start(configure: configure)
        #expect(collector.firstFoldDone())
        return collector
    }

    /// A batch of `count` deliveries, two days back; 200 once committed.
    static func post(_ count: Int, to collector: TestCollector, key: String) throws {
        let events = (0..<count).map { i in TestBatch.event(id: .v7(at: past), at: past.adding(seconds: Double(i))) }
        #expect(try collector.client().post("/v1/batch", key: key, json: TestBatch.body(events)).status == 200)
    }

    /// The 30-day report's delivered notifications, over HTTP.
    static func delivered(_ collector: TestCollector, key: String) throws -> Int64? {
        let response = try collector.client().get("/v1/reports/engagement?format=json", key: key)
        #expect(response.status == 200, "\(response.text)")
        // An app with nothing delivered has no overall figure.
        return response.json?["overall"]?["delivered"]?.numberValue?.integer ?? 0
    }

    /// A metric's value in the collector's /metrics text (`series` with its labels, if any).
    static func metric(_ collector: TestCollector, _ series: String) -> Double {
        for line in collector.metrics.render().split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? -1
        }
        return 0
    }

    static func folds(_ collector: TestCollector) -> Int { collector.foldsDone }
    static func waits(_ collector: TestCollector, _ outcome: String) -> Double {
        metric(collector, CollectorMetrics.readFoldWaits + "{outcome=\"\(outcome)\"}")
    }

    /// A collector with a batch of `count` deliveries pending, and a connection holding a lock
    /// that makes the next fold wait when it takes that batch (commits wait too: post nothing).
    static func lockedAfterABatch(_ count: Int, readerThreads: Int = 2, waitMilliseconds: Int = 30_000) throws
        -> (TestCollector, CreatedApp, PostgresConnection) {
        let collector = try start(readerThreads: readerThreads, waitMilliseconds: waitMilliseconds)
        let app = try collector.database.createApp()
        try post(count, to: collector, key: app.writeKey.text)
        let lock = try collector.database.connect()
        try lock.query("BEGIN")
        try lock.query("LOCK TABLE rollup_delta_batches IN SHARE MODE")
        return (collector, app, lock)
    }

    /// Reports requested on threads of their own, and what each answered.
    final class BackgroundReports: Sendable {
        private let answers = Mutex<[Int64?]>([])
        private let done = DispatchGroup()

        func request(_ collector: TestCollector, key: String) {
            done.enter()
            Thread { [self] in
                defer { done.leave() }
                let delivered = try? SharedFoldTests.delivered(collector, key: key)
                answers.withLock { $0.append(delivered ?? nil) }
            }.start()
        }

        /// Every report's answer, once all have answered.
        func wait() -> [Int64?] {
            done.wait()
            return answers.withLock { $0 }
        }
    }

    /// Whether the collector's fold (or one of them) is waiting on a lock: held by the test. Only
    /// this test's database: pg_stat_activity shows every database, and other suites' collectors
    /// fold at the same time (one of theirs waiting made this true before this collector's fold
    /// had started, so later readers took its ticket).
    static func foldWaitsOnALock(_ database: TestDatabase) -> Bool {
        (try? eventually(timeout: 30) {
            try database.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tapwire-rollup-fold' AND wait_event_type = 'Lock'").scalar == "1"
        }) ?? false
    }

    @Test func aReportRightAfterABatchsAcknowledgementCountsItThroughTheCollectorsFold() throws {
        let collector = try Self.start()
        defer { collector.stop() }
        let app = try collector.database.createApp()
        #expect(try Self.delivered(collector, key: app.readKey.text) == 0)
        #expect(Self.folds(collector) == 2, "the report woke the fold once")
        for round in 1...3 {
            try Self.post(40, to: collector, key: app.writeKey.text)
            #expect(try Self.delivered(collector, key: app.readKey.text) == Int64(40 * round))
        }
        #expect(Self.folds(collector) == 5, "one fold per report, the collector's")
        #expect(Self.waits(collector, "shared") == 4)
        // The HTML page reads the report and every family's findings section (mismatches, the
        // release check, holdouts' splits): one request, one ticket, one fold.
        try Self.post(10, to: collector, key: app.writeKey.text)
        let page = try collector.client().get("/report?app=\(app.name)", key: app.readKey.text)
        #expect(page.status == 200, "\(page.text.prefix(300))")
        #expect(Self.folds(collector) == 6, "the page and its findings sections shared one fold")
        #expect(Self.waits(collector, "shared") == 5)
        #expect(try Self.delivered(collector, key: app.readKey.text) == 130)
        #expect(Self.waits(collector, "timed_out") == 0 && Self.waits(collector, "fold_failed") == 0)
        #expect(try collector.database.query("SELECT count(*) FROM rollup_delta_batches").scalar == "0")
    }

    /// Reports that arrive while a fold runs wait for the next one, and that one fold serves them
    /// all: the fold is held on a lock the test takes, then let go.
    @Test func manyConcurrentReportsCauseOneFold() throws {
        let readers = 4
        let (collector, app, lock) = try Self.lockedAfterABatch(25, readerThreads: readers)
        defer { collector.stop(); lock.close() }

        let reports = BackgroundReports()
        // The first report wakes the fold, which waits on the lock to take the pending batch.
        reports.request(collector, key: app.readKey.text)
        #expect(Self.foldWaitsOnALock(collector.database), "the fold never waited on the test's lock")
        // These arrive while that fold runs: it may have looked for batches before theirs, so each waits for the next.
        for _ in 1..<readers { reports.request(collector, key: app.readKey.text) }
        #expect(eventually(timeout: 30) { Self.metric(collector, CollectorMetrics.readFoldWaiting) == Double(readers) })
        #expect(Self.folds(collector) == 1)
        try lock.query("COMMIT")
        #expect(reports.wait() == Array(repeating: Int64(25), count: readers))
        #expect(Self.folds(collector) == 3, "the fold the first report woke, and one more for the other \(readers - 1)")
        #expect(Self.waits(collector, "shared") == Double(readers))
    }

    /// Two collectors on one database: a batch acknowledged by one is counted by a report on the
    /// other, and when another fold has taken the batch but not committed, the report's fold waits
    /// for that one's commit (the row lock of take_rollup_delta_batches.sql) and counts it.
    @Test func aReportOnAnotherCollectorCountsABatchAnotherFoldHolds() throws {
        let reading = try Self.start()
        defer { reading.stop() }
        let writing = try Self.start(reading.database)
        defer { writing.stop() }
        let app = try reading.database.createApp()
        try Self.post(30, to: writing, key: app.writeKey.text)
        #expect(try Self.delivered(reading, key: app.readKey.text) == 30)

        try Self.post(20, to: writing, key: app.writeKey.text)
        // A third fold, in flight: it has taken the batch and not committed.
        let other = try reading.database.connect()
        defer { other.close() }
        try other.query("BEGIN")
        #expect(try RollupStore().foldPending(on: other) > 0)
        let reports = BackgroundReports()
        reports.request(reading, key: app.readKey.text)
        #expect(Self.foldWaitsOnALock(reading.database), "the reading collector's fold never waited for the fold in flight")
        try other.query("COMMIT")
        #expect(reports.wait() == [50])
        #expect(Self.waits(reading, "shared") == 2)
    }

    /// A fold that does not commit within the bound: the report folds itself, as outside the
    /// collector, and still counts every acknowledged batch.
    @Test func aReportWhoseFoldIsStuckFoldsItselfAfterItsBound() throws {
        let (collector, app, lock) = try Self.lockedAfterABatch(15, waitMilliseconds: 300)
        defer { collector.stop(); lock.close() }
        let reports = BackgroundReports()
        reports.request(collector, key: app.readKey.text)
        // Its own fold waits on the lock too; let go once it gave up on the collector's.
        #expect(eventually(timeout: 30) { Self.waits(collector, "timed_out") == 1 })
        try lock.query("COMMIT")
        #expect(reports.wait() == [15])
        #expect(Self.waits(collector, "shared") == 0)
    }

    /// A fold a reader wakes starts no sooner than the rest after the previous fold's end: with
    /// a rest of an hour the folder does not fold for the report, which waits its bound and folds
    /// itself, counting every acknowledged batch all the same.
    @Test func aReportWokenDuringTheRestWaitsForItsEndNotForAFoldAtOnce() throws {
        let collector = try Self.start(waitMilliseconds: 300, restMilliseconds: 3_600_000)
        defer { collector.stop() }
        let app = try collector.database.createApp()
        try Self.post(35, to: collector, key: app.writeKey.text)
        #expect(try Self.delivered(collector, key: app.readKey.text) == 35)
        #expect(Self.folds(collector) == 1, "the folder rests: only its fold at start")
        #expect(Self.waits(collector, "timed_out") == 1 && Self.waits(collector, "shared") == 0)
    }
}
