import TapwireCore
import TapwireReport
import TapwireStore

/// `GET /v1/reports/mismatches?app=NAME&since=7d[&until=…][&format=json|csv|html][&minSeverity=…]`
/// with the app's read key. `since`/`until` take a duration back from now (`24h`, `7d`) or an
/// ISO 8601 time; the window starts at the hour. Without `format`, the Accept header chooses
/// (text/csv, text/html), else JSON `{"findings": [...]}`.
public struct MismatchRoutes: Sendable {
    public var findings: any FindingsReader

    public init(findings: any FindingsReader) { self.findings = findings }

    public var all: [Route] {
        [Route("GET", "/v1/reports/mismatches", access: .read, handle: report)]
    }

    /// json, csv or html (the findings' formats but the table).
    public typealias Format = FindingRoutes.Format

    /// The findings query as this endpoint spells it: `until` is its instant, and its window is a
    /// week by default.
    static let conventions = FindingsQuery.Conventions(names: FindingsQuery.Conventions.http.names, instant: .until,
                                                       defaultWindowSeconds: 7 * 86_400, defaultSeverity: .info)

    /// The query of a mismatch request, validated: every mistake is a 400 that says the fix.
    public struct Query: Sendable, Equatable {
        public var findings: FindingsQuery
        public var format: Format

        public static func parse(_ query: [String: String], accept: String?, now: Timestamp) throws(APIError) -> Query {
            let known: Set<String> = ["app", "since", "until", "format", "minSeverity"]
            if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
                throw APIError(.badRequest, "unknown query parameter \(FieldRules.truncatedForEcho(unknown)); this endpoint takes app, since, until, format and minSeverity")
            }
            var values: [FindingsQuery.Parameter: String] = [:]
            values[.until] = query["until"]
            values[.since] = query["since"]
            values[.minimumSeverity] = query["minSeverity"]
            let findings: FindingsQuery
            do {
                findings = try FindingsQuery.parse(values, now: now, conventions: conventions)
            } catch {
                throw APIError(error)
            }
            return Query(findings: findings, format: try Format.negotiate(query["format"], accept: accept, formats: [.json, .csv, .html]))
        }
    }

    func report(_ call: RouteRequest) async throws(APIError) -> HTTPResponse {
        let identity = try call.ownApp()
        let query = try Query.parse(call.request.query, accept: call.request.header("accept"), now: .now)
        let report = try await findings.mismatches(appId: identity.appId, appName: identity.appName, query: query.findings)
            .filtered(minimumSeverity: query.findings.minimumSeverity)
        return FindingRoutes.answer(query.format, json: report.json, csv: report.csv, html: report.htmlPage, table: report.table,
                                    download: "mismatches-\(identity.appName).csv", findings: report.findings.count)
    }
}
