import Testing
import TapwireCore
import TapwireReport
import TapwireStore
import TapwireTestSupport

/// The raw events number a cut day exactly as the rollups do: an event in the last second of a
/// UTC day belongs to that day. `date_part('epoch', t)::bigint` rounds, so an event at 23:59:59.6
/// once landed in the next day's look of the anytime-valid interval.
@Suite struct StrataDayTests {
    @Test func anEventInTheLastSecondOfADayCountsInThatDay() throws {
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        defer { collector.stop() }
        let app = try collector.database.createApp()
        let day = ReportFixtures.start.microseconds / 86_400_000_000
        let late = ReportFixtures.start.adding(microseconds: ReportFixtures.day - 400_000) // 23:59:59.6
        let events = [
            TestBatch.event("delivered", at: late, [("hasMedia", .bool(true))]),
            TestBatch.event("response", at: late, [("hasMedia", .bool(true)), ("actionIdentifier", "com.apple.UNNotificationDefaultActionIdentifier")]),
        ]
        let posted = try ReportFixtures.post(collector.client(), key: app.writeKey.text, TestBatch.body(events, sentAt: nil))
        #expect(posted["accepted"]?.numberValue?.integer == 2)
        let connection = try collector.database.connect()
        defer { connection.close() }
        // The range starts at 23:30 and ends at 00:30: two cut days, read from quarter hours (or events).
        let from = ReportFixtures.start.adding(microseconds: ReportFixtures.day - 30 * 60_000_000)
        let to = ReportFixtures.start.adding(microseconds: ReportFixtures.day + 30 * 60_000_000)
        for source in [ReportSource.rollups, .rawEvents] {
            let data = try PostgresReportReader(connection: connection)
                .read(ReportScope(appId: app.appId, from: from, to: to, source: source), dismissMeasurable: [])
            let cut = data.totals.filter { $0.counts.delivered > 0 }
            #expect(cut.count == 1)
            #expect(cut.allSatisfy { $0.cutDay == Int(day) }, "\(source): \(cut.map(\.cutDay)) for day \(day)")
        }
    }
}
