import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStatistics
import TapwireStore
import TapwireTestSupport

/// A quarter hour a report's edge cuts, read whole (`ReportPlan.wholeQuarters`): its rollup rows,
/// the app's deltas the fold has not moved into them yet, less its rest from events. In one
/// snapshot that is exactly the events of its part, and the part itself is never read from
/// events: a report to now inside a busy collector read every event of the current quarter hour
/// (hundreds of thousands, seconds of the collector's CPU) before it did (docs/reports.md, "The
/// quarter hour a report cuts").
@Suite struct CutQuarterTests {
    static let minute: Int64 = 60_000_000

    /// Read on a connection that may not write, so the report does not fold first and the
    /// pending deltas are its own to add: the rollup report equals the raw-events report, and
    /// with the parts' events deleted afterwards it is unchanged (it never read them).
    @Test func aCutQuarterReadWholeAddsItsPendingDeltasAndTakesAwayItsRest() throws {
        // No fold but the test's own: the second pass of the loop is an hour away.
        let collector = try TestCollector.start {
            $0.rateLimitPerSecond = 0
            $0.findingsMonitor = false
            $0.rollupFoldMilliseconds = 3_600_000
        }
        defer { collector.stop() }
        #expect(collector.firstFoldDone())
        let app = try collector.database.createApp()
        let client = collector.client()
        let writer = try collector.database.connect()
        defer { writer.close() }
        var rng = SeededGenerator(seed: 20261205)
        let ten = ReportFixtures.start.adding(microseconds: 10 * ReportFixtures.hour)
        func at(_ minutes: Int64) -> Timestamp { ten.adding(microseconds: minutes * Self.minute) }
        func post(batches: Int, from: Int64, to: Int64) throws {
            for _ in 0..<batches {
                let events = (0..<60).map { _ in RollupConsistencyTests.randomEvent(&rng, from: at(from), span: (to - from) * Self.minute) }
                let context: [(String, JSONValue)] = [("appVersion", .string(["1.0", "1.1"][Int.random(in: 0..<2, using: &rng)])),
                                                      ("platform", .string(["iOS", "watchOS"][Int.random(in: 0..<2, using: &rng)]))]
                _ = try ReportFixtures.post(client, key: app.writeKey.text, TestBatch.body(events, context: context))
            }
        }
        // Folded: 09:00 to 11:00. Pending: the two quarter hours the range cuts, their rests too.
        try post(batches: 30, from: -60, to: 60)
        try RollupStore().fold(on: writer)
        try post(batches: 6, from: 0, to: 15)
        try post(batches: 6, from: 30, to: 45)
        #expect(try writer.query("SELECT count(*) FROM rollup_delta_batches WHERE app_id = $1::bigint", [String(app.appId)]).scalar != "0")

        // 10:01 to 10:38: 14 minutes of the first quarter against its 1, 8 of the last against 7.
        let from = at(1), to = at(38)
        let plan = ReportPlan(from: from.microseconds, to: to.microseconds, localDays: [(day: "2026-11-02", start: ReportFixtures.start.microseconds)],
                              coverage: nil, now: Timestamp.now.microseconds)
        #expect(plan.wholeQuarters == [at(0).microseconds, at(30).microseconds])
        #expect(plan.eventRanges.isEmpty && plan.trendEventRanges.isEmpty)
        #expect(plan.restRanges == [ReportPlan.Run(lo: at(0).microseconds, hi: from.microseconds),
                                    ReportPlan.Run(lo: to.microseconds, hi: at(45).microseconds)])

        let reader = try collector.database.connect()
        defer { reader.close() }
        try reader.query("SET default_transaction_read_only = on")
        func report(_ source: ReportSource) throws -> EngagementReport {
            let scope = ReportScope(appId: app.appId, from: from, to: to, timeZone: "UTC", source: source)
            return try EngagementReportService().report(appName: app.name, scope: scope, on: reader, now: Timestamp(microseconds: 0))
        }
        let slow = try report(.rawEvents)
        var fast = try report(.rollups)
        #expect(fast.overall.delivered > 0 && fast.categories.count == RollupConsistencyTests.categories.count)
        fast.source = .rawEvents
        #expect(fast == slow, "the cut quarters read whole differ from their events")
        // Nothing was folded: the batches are still pending.
        #expect(try writer.query("SELECT count(*) FROM rollup_delta_batches WHERE app_id = $1::bigint", [String(app.appId)]).scalar != "0")

        // The parts' events gone, the rests kept: the rollup report has not changed.
        try writer.query("DELETE FROM events WHERE app_id = $1::bigint AND ((event_time >= $2::timestamptz AND event_time < $3::timestamptz) OR (event_time >= $4::timestamptz AND event_time < $5::timestamptz))",
                         [String(app.appId), from.description, at(15).description, at(30).description, to.description])
        var after = try report(.rollups)
        after.source = .rawEvents
        #expect(after == slow, "the report read the parts of its cut quarters from events")
    }
}
