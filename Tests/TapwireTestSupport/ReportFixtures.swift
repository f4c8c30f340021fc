import Foundation
import TapwireCore
import TapwireReport
import TapwireStatistics
import TapwireStore

/// Shared helpers for the report and demo tests: posting through the real HTTP API and reading reports.
public enum ReportFixtures {
    public static let hour: Int64 = 3_600_000_000
    public static let day: Int64 = 24 * hour

    /// A fixed past period, so the tests do not depend on the wall clock's day.
    public static let start = Timestamp(iso8601: "2026-11-02T00:00:00Z")!

    public static func post(_ client: HTTPTestClient, key: String, _ body: [UInt8]) throws -> JSONValue {
        let response = try client.post("/v1/batch", key: key, json: body)
        guard response.status == 200, let json = response.json else {
            throw TestClientError(message: "POST /v1/batch: \(response.status) \(response.text)")
        }
        return json
    }

    public static func postManifest(_ client: HTTPTestClient, key: String, version: String, categories: [JSONValue]) throws {
        let body = JSONValue.object([("appVersion", .string(version)), ("categories", .array(categories))]).serializedBytes()
        let response = try client.post("/v1/categories", key: key, json: body)
        guard response.status == 200 else { throw TestClientError(message: "POST /v1/categories: \(response.status) \(response.text)") }
    }

    public static func report(_ database: TestDatabase, app: CreatedApp, from: Timestamp, to: Timestamp, timeZone: String = "UTC",
                       filters: ReportFilters = ReportFilters(), groupBy: ReportDimension? = nil,
                       source: ReportSource = .rollups, minimum: MinimumSample = .default) throws -> EngagementReport {
        let connection = try database.connect()
        defer { connection.close() }
        let scope = ReportScope(appId: app.appId, from: from, to: to, timeZone: timeZone, filters: filters, groupBy: groupBy, source: source)
        return try EngagementReportService().report(appName: app.name, scope: scope, minimumSample: minimum, on: connection,
                                                    now: Timestamp(microseconds: 0))
    }

    public static func category(_ report: EngagementReport, _ name: String) throws -> CategoryEngagement {
        guard let found = report.categories.first(where: { $0.category == name }) else {
            throw TestClientError(message: "no category \(name) in the report")
        }
        return found
    }
}
