import Foundation
import TapwireStatistics
import Testing
import TapwireCore
@testable import TapwireReport
import TapwireStore
import TapwireTestSupport

/// The third family of findings against the real PostgreSQL: assignments stored and folded, the
/// family's scan flags the campaign whose split is broken (issue 36's 52/48 of 20,000 devices
/// where 50/50 was intended) and not the one split as stated, and its section and outputs say so.
@Suite struct SampleRatioMismatchFamilyTests {
    @Test func aBrokenSplitIsAFindingAndACorrectOneIsNot() throws {
        let db = try TestDatabase.create()
        let app = try db.createApp()
        let start = Timestamp.now.adding(microseconds: -3 * 86_400_000_000)
        var rng = SeededGenerator(seed: 52)
        var events: [Event] = []
        func assign(_ campaign: String, _ heldOut: Bool, _ device: Int) {
            let at = start.adding(microseconds: Int64.random(in: 0..<(2 * 86_400_000_000), using: &rng))
            events.append(Event(eventId: .v7(at: at, using: &rng), type: .assignment, deviceTime: at, category: "", campaign: campaign,
                                assignment: .init(arm: heldOut ? .heldOut : .treated, holdoutShare: 0.5), deviceId: "d\(device)"))
        }
        for d in 0..<20_000 { assign("broken", d >= 10_400, d) } // 10,400 treated, 9,600 held out
        for d in 0..<2_000 { assign("fine", d % 2 == 0, d) }
        let writer = EventWriter(connection: try db.connect(), partitions: PartitionDays())
        defer { writer.connection.close() }
        for chunk in stride(from: 0, to: events.count, by: 5_000) {
            try writer.commit([StagedBatch(appId: app.appId, receivedAt: .now, context: DeviceContext(appVersion: "1", platform: "iOS"),
                                           events: Array(events[chunk..<min(events.count, chunk + 5_000)]))])
        }
        let family = SampleRatioMismatchFamily()
        let connection = try db.connect()
        defer { connection.close() }
        #expect(try family.appsToScan(at: .now, on: connection).map(\.appId) == [app.appId])
        let findings = try family.scan(appId: app.appId, at: .now, on: connection)
        try #require(findings.count == 1)
        let finding = findings[0]
        #expect(finding.kind == .sampleRatioMismatch && finding.subject.category == "broken" && finding.severity == .error)
        let evidence = try #require(finding.evidence as? SampleRatioMismatch)
        #expect(evidence.treated == 10_400 && evidence.heldOut == 9_600 && evidence.expectedShare == 0.5 && abs(evidence.observedShare - 0.48) < 1e-12)
        // Both p-values recomputed here: χ² on one degree of freedom is erfc(√(X²/2)); the Bayes
        // factor of a Dirichlet(50, 50) mixture against 50/50, from log-gammas.
        let x2: Double = 2 * 400.0 * 400.0 / 10_000
        let chiSquareP: Double = erfc((x2 / 2).squareRoot())
        #expect(abs(try #require(evidence.pValue) - chiSquareP) < 1e-15)
        let mixture: Double = lgamma(100.0) - lgamma(20_100.0) + lgamma(10_450.0) + lgamma(9_650.0) - 2 * lgamma(50.0)
        let logBF: Double = mixture + 20_000 * log(2.0)
        #expect(evidence.sequentialPValue <= exp(-logBF) * (1 + 1e-9) && evidence.sequentialPValue < 0.001)
        #expect(finding.keys(appId: app.appId).count == 1, "announced once per campaign")

        let section = try family.section(appId: app.appId, appName: "demo", query: FindingsQuery(asOf: .now, since: start.adding(seconds: -60)),
                                         on: connection)
        #expect(section.findings.count == 1)
        #expect(section.table.contains("MISMATCH  broken: 10400 treated, 9600 held out") && section.table.contains("ok  fine: 1000 treated, 1000 held out"))
        #expect(family.json(finding)["campaign"]?.stringValue == "broken")
        #expect(family.messageFacts([finding]).first?.hasPrefix("48.00% of 20000 devices held out where 50.00% was intended") == true)
    }
}
