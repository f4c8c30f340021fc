import Testing
import TapwireCore
import TapwireStatistics
@testable import TapwireReport

/// The service over a reader that holds its rows in memory: what it asks the reader for and
/// what it refuses, without a database.
@Suite struct ReportServiceTests {
    final class MemoryReader: ReportReading {
        var data: ReportData
        var manifestsByVersion: [String: Manifest]
        private(set) var asked: [(scope: ReportScope, pairs: [String])] = []

        init(data: ReportData, manifests: [String: Manifest]) {
            self.data = data
            self.manifestsByVersion = manifests
        }

        func dayEdges(timeZone: String, fromDate: String?, toDate: String?, sinceDays: Int?) throws(ReportFailure)
            -> (from: Timestamp?, to: Timestamp?, since: Timestamp?, now: Timestamp) {
            guard timeZone == "UTC" else { throw .invalid(ReportError(.unknownTimeZone, "only UTC here")) }
            let now = Timestamp(iso8601: "2026-11-05T08:00:00Z")!
            return (fromDate.flatMap { Timestamp(iso8601: $0) }, toDate.flatMap { Timestamp(iso8601: $0)?.adding(microseconds: 86_400_000_000) },
                    sinceDays.map { now.adding(microseconds: -Int64($0 - 1) * 86_400_000_000 - 8 * 3_600_000_000) }, now)
        }

        func manifests(appId: Int64) throws(ReportFailure) -> [String: Manifest] { manifestsByVersion }

        func read(_ scope: ReportScope, dismissMeasurable: [(category: String, appVersion: String)]) throws(ReportFailure) -> ReportData {
            asked.append((scope, dismissMeasurable.map { "\($0.category)@\($0.appVersion)" }))
            return data
        }
    }

    static let manifests = [
        "1.0": Manifest(appVersion: "1.0", categories: [ManifestCategory(identifier: "message", options: ["customDismissAction"]),
                                                        ManifestCategory(identifier: "promo")]),
        "1.1": Manifest(appVersion: "1.1", categories: [ManifestCategory(identifier: "message")]),
    ]

    @Test func theReaderIsAskedForTheMeasurableVersionsOnlyAndTheScopeOnce() throws {
        let counts = [ReportCountRow(appVersion: "1.0", day: "2026-11-03", category: "message", hasMedia: false, delivered: 100, dismissals: 7),
                      ReportCountRow(appVersion: "1.1", day: "2026-11-03", category: "message", hasMedia: false, delivered: 50, dismissals: 2)]
        let reader = MemoryReader(data: ReportData(days: ["2026-11-03", "2026-11-04", "2026-11-05"], counts: counts),
                                  manifests: Self.manifests)
        let request = try ReportRequest(options: [("since", "3d"), ("os", "18")])
        let report = try EngagementReportService().report(appId: 9, appName: "shop", request: request, reading: reader)
        #expect(reader.asked.count == 1)
        #expect(reader.asked.first?.pairs == ["message@1.0"])
        #expect(reader.asked.first?.scope.filters[.os] == "18" && reader.asked.first?.scope.readsEvents == true)
        // Only 1.0 registers customDismissAction: its 7 of 100.
        let message = try #require(report.categories.first { $0.category == "message" })
        #expect(message.dismiss.count == 7 && message.dismiss.base == 100)
        #expect(report.filters[.os] == "18")
    }

    @Test func aBadRequestNeverReachesTheReader() throws {
        let reader = MemoryReader(data: ReportData(days: []), manifests: [:])
        let service = EngagementReportService()
        #expect(throws: ReportFailure.self) {
            _ = try service.report(appId: 1, appName: "shop", request: try ReportRequest(options: [("tz", "Mars/Olympus")]), reading: reader)
        }
        let backwards = ReportScope(appId: 1, from: Timestamp(iso8601: "2026-11-05T00:00:00Z")!, to: Timestamp(iso8601: "2026-11-01T00:00:00Z")!)
        do {
            _ = try service.report(appName: "shop", scope: backwards, reading: reader)
            Issue.record("an empty range was accepted")
        } catch {
            guard case .invalid(let reason) = error else { Issue.record("not a request error: \(error)"); return }
            #expect(reason.code == .invalidRange)
        }
        #expect(reader.asked.isEmpty)
    }
}
