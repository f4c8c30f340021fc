import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// A holdout end to end: assignments and conversions posted to a running collector, out of order
/// and with a repeated assignment, then `holdouts` in the JSON report (docs/holdouts.md), whose
/// counts equal SQL written here over the raw events and whose JSON keeps the schema.
@Suite struct HoldoutReportTests {
    @Test func theReportShowsEachCampaignsHoldout() throws {
        let collector = try TestCollector.start { $0.rateLimitPerSecond = 0 }
        let app = try collector.database.createApp()
        var rng = SeededGenerator(seed: 3_600)
        let start = Timestamp.now.adding(microseconds: -4 * 86_400_000_000)
        var events: [JSONValue] = []
        for d in 0..<1_200 {
            let device = "install-\(d)"
            let at = start.adding(microseconds: Int64.random(in: 0..<(3 * 86_400_000_000), using: &rng))
            let heldOut = Double.random(in: 0..<1, using: &rng) < 0.2
            events.append(TestBatch.assignment(device: device, campaign: "spring", heldOut: heldOut, share: 0.2, at: at, rng: &rng))
            if d % 50 == 0 { // assigned again later, in the other arm: ignored
                events.append(TestBatch.assignment(device: device, campaign: "spring", heldOut: !heldOut, share: 0.2,
                                                   at: at.adding(microseconds: 3_600_000_000), rng: &rng))
            }
            if Double.random(in: 0..<1, using: &rng) < (heldOut ? 0.05 : 0.15) {
                let t = at.adding(microseconds: Int64.random(in: 0..<(86_400_000_000), using: &rng))
                events.append(.object([("eventId", .string(EventID.v7(at: t, using: &rng).description)), ("type", "conversion"),
                                       ("timestamp", .string(t.description)), ("name", "purchase"), ("value", .double(19.99)),
                                       ("currency", "EUR"), ("deviceId", .string(device))]))
            }
        }
        events.shuffle(using: &rng)
        let client = collector.client()
        for chunk in stride(from: 0, to: events.count, by: 500) {
            let json = try ReportFixtures.post(client, key: app.writeKey.text, TestBatch.body(Array(events[chunk..<min(events.count, chunk + 500)])))
            #expect(json["rejected"]?.arrayValue?.isEmpty ?? true, "\(json)")
        }
        let connection = try collector.database.connect()
        defer { connection.close() }
        let scope = ReportScope(appId: app.appId, from: start.adding(microseconds: -86_400_000_000), to: .now, timeZone: "UTC", source: .rollups)
        let report = try EngagementReportService().report(appName: app.name, scope: scope, on: connection)
        let spring = try #require(report.holdouts.first)
        #expect(report.holdouts.count == 1 && spring.campaign == "spring" && spring.window == "7 days")

        // The same counts from the raw events, by a query of this test.
        let expected = try connection.query("""
            WITH firsts AS (
                SELECT DISTINCT ON (device_id) device_id, event_time, held_out FROM events
                WHERE app_id = $1 AND type = 'assignment' ORDER BY device_id, event_time, event_id
            )
            SELECT f.held_out::text, count(*)::text,
                   count(*) FILTER (WHERE EXISTS (SELECT 1 FROM events c WHERE c.app_id = $1 AND c.type = 'conversion'
                                                   AND c.device_id = f.device_id AND c.event_time >= f.event_time
                                                   AND c.event_time < f.event_time + interval '7 days'))::text
            FROM firsts f GROUP BY 1 ORDER BY 1
            """, [String(app.appId)]).rows
        #expect(expected == [["false", String(spring.treated.devices), String(spring.treated.converted)],
                             ["true", String(spring.heldOut.devices), String(spring.heldOut.converted)]])
        #expect(spring.treated.devices + spring.heldOut.devices == 1_200)
        #expect(spring.withheld == nil && !spring.srm.mismatch && spring.srm.expectedShare == 0.2)
        let difference = try #require(spring.difference)
        #expect(difference > 0 && spring.ci95?.contains(difference) == true && spring.anytimeValid != nil)
        #expect(spring.valuePerDevice != nil)
        // Assignments are not notifications: the reports that read the events (grouped, filtered)
        // list no category for them, as the rollups' report does not.
        #expect(report.categories.isEmpty, "\(report.categories.map(\.category))")
        let grouped = try EngagementReportService().report(appName: app.name, scope: ReportScope(appId: app.appId, from: scope.from, to: scope.to,
                                                                                                 timeZone: "UTC", groupBy: .platform,
                                                                                                 source: .rollups), on: connection)
        #expect(grouped.categories.isEmpty && grouped.groups.allSatisfy { $0.categories.isEmpty },
                "\(grouped.categories.map(\.category)) \(grouped.groups.map { $0.categories.map(\.category) })")

        let json = JSONReportRenderer().render(report)
        try SchemaCheck.validate(json)
        #expect(json.contains("\"holdouts\"") && json.contains("\"sequentialPValue\"") && json.contains("\"firstAssignmentKept\": true"))
        let table = TableReportRenderer().render(report), markdown = MarkdownReportRenderer().render(report)
        #expect(table.contains("Holdouts: what the notifications caused") && table.contains("spring (window 7 days; first assignment kept): treated \(Fmt.count(spring.treated.devices))"))
        #expect(HTMLReportRenderer().render(report).contains("<section class=\"holdouts\"><h2>Holdouts: what the notifications caused</h2>"))
        #expect(markdown.contains("## Holdouts: what the notifications caused") && markdown.contains("- Opens: no incremental effect on opens is shown"))

        // The HTTP API's CSV: the campaign's row, its figures in the holdout columns.
        let served = try client.get("/v1/reports/engagement?since=7d&format=csv", key: app.readKey.text)
        #expect(served.status == 200, "\(served.text.prefix(300))")
        let rows = FormulaInjection.cells(served.text)
        let header = try #require(rows.first)
        #expect(header == CSVReportRenderer.header)
        let row = try #require(rows.first { $0.first == "holdout" && $0.count > 1 && $0[1] == "spring" }, "\(served.text.suffix(600))")
        let cell = Dictionary(uniqueKeysWithValues: zip(header, row))
        #expect(cell["holdout_treated_devices"] == String(spring.treated.devices) && cell["holdout_held_out_converted"] == String(spring.heldOut.converted))
        #expect(abs((cell["holdout_difference_pp"].flatMap { Double($0) } ?? -1) - difference * 100) < 1e-6 && cell["holdout_srm_mismatch"] == "false")
    }
}

extension TestBatch {
    /// An assignment as the sender posts it.
    static func assignment(device: String, campaign: String, heldOut: Bool, share: Double, at time: Timestamp,
                           rng: inout SeededGenerator) -> JSONValue {
        .object([("eventId", .string(EventID.v7(at: time, using: &rng).description)), ("type", "assignment"),
                 ("timestamp", .string(time.description)), ("campaign", .string(campaign)),
                 ("arm", .string(heldOut ? "held_out" : "treated")), ("holdoutShare", .double(share)), ("deviceId", .string(device))])
    }
}
