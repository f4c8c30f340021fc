import TapwireCore
import TapwireReport
import TapwireStore

/// Every family's findings over HTTP, with the app's read key:
///
/// - `GET /v1/findings?app=NAME[&at=TIME|&fresh=true][&since=24h][&format=json|csv|html|table][&minSeverity=…]`:
///   what `tapwire alerts` prints: category mismatches over [since, at) and the release-regression
///   check as of `at`.
/// - `GET /v1/reports/regressions?app=NAME[&at=TIME|&fresh=true][&format=json|html|table]`: the
///   release-regression check alone, every series with its status.
///
/// `at` replays: only events before it count (the check's looks are whole hours: docs/regressions.md),
/// always computed. Without it, the current hour's look the collectors stored is served when it
/// applies; `fresh=true` computes it again from the rollups as they are now.
/// `at` and `since` take a duration back from now (`24h`) or an ISO 8601 time, parsed as
/// `tapwire alerts` parses them (`FindingsQuery`); the window is at most 400 days. Without
/// `format`, the Accept header chooses.
public struct FindingRoutes: Sendable {
    public var findings: any FindingsReader

    public init(findings: any FindingsReader) { self.findings = findings }

    public var all: [Route] {
        [
            Route("GET", "/v1/findings", access: .read, handle: everyFamily),
            Route("GET", "/v1/reports/regressions", access: .read, handle: regressions),
        ]
    }

    public enum Format: String, Sendable {
        case json, csv, html, table

        /// The format named (`format=`), else the one the Accept header prefers, else JSON.
        static func negotiate(_ named: String?, accept: String?, formats: [Format]) throws(APIError) -> Format {
            if let named {
                guard let format = Format(rawValue: named.lowercased()), formats.contains(format) else {
                    throw APIError(.badRequest, "format must be \(formats.map(\.rawValue).joined(separator: ", "))")
                }
                return format
            }
            guard let accept = accept?.lowercased() else { return .json }
            if accept.contains("text/csv"), formats.contains(.csv) { return .csv }
            if accept.contains("text/html"), formats.contains(.html) { return .html }
            if accept.contains("text/plain"), formats.contains(.table) { return .table }
            return .json
        }
    }

    /// A findings request, validated: every mistake is a 400 that says the fix. The findings
    /// part is `FindingsQuery`, the one parser `tapwire alerts` shares; the format is the HTTP API's.
    public struct Query: Sendable, Equatable {
        public var findings: FindingsQuery
        public var format: Format

        public static func parse(_ query: [String: String], accept: String?, now: Timestamp, formats: [Format],
                                 windowed: Bool) throws(APIError) -> Query {
            var known: [String] = ["app", "at", "fresh", "format"]
            if windowed { known += ["since", "minSeverity"] }
            if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
                throw APIError(.badRequest, "unknown query parameter \(FieldRules.truncatedForEcho(unknown)); this endpoint takes \(known.joined(separator: ", "))")
            }
            var values: [FindingsQuery.Parameter: String] = [:]
            values[.at] = query["at"]
            values[.since] = query["since"]
            values[.fresh] = query["fresh"]
            values[.minimumSeverity] = query["minSeverity"]
            let findings: FindingsQuery
            do {
                findings = try FindingsQuery.parse(values, now: now, conventions: .http)
            } catch {
                throw APIError(error)
            }
            return Query(findings: findings, format: try Format.negotiate(query["format"], accept: accept, formats: formats))
        }
    }

    /// `GET /v1/findings`: every family's findings, at or above the severity asked for.
    func everyFamily(_ call: RouteRequest) async throws(APIError) -> HTTPResponse {
        let identity = try call.ownApp()
        let query = try Query.parse(call.request.query, accept: call.request.header("accept"), now: .now, formats: [.json, .csv, .html, .table],
                                    windowed: true)
        let report = try await findings.findings(appId: identity.appId, appName: identity.appName, query: query.findings)
            .filtered(minimumSeverity: query.findings.minimumSeverity)
        return Self.answer(query.format, json: report.json, csv: report.csv, html: report.htmlPage, table: report.table,
                           download: "findings-\(identity.appName).csv", findings: report.findings.count)
    }

    /// `GET /v1/reports/regressions`: the release-regression check alone.
    func regressions(_ call: RouteRequest) async throws(APIError) -> HTTPResponse {
        let identity = try call.ownApp()
        let query = try Query.parse(call.request.query, accept: call.request.header("accept"), now: .now, formats: [.json, .html, .table],
                                    windowed: false)
        let check = try await findings.regressions(appId: identity.appId, query: query.findings)
        var response: HTTPResponse
        switch query.format {
        case .json: response = .json(200, check.json)
        case .html:
            response = .text(200, FindingsReport.page(app: identity.appName, title: "Release regressions", check.htmlSection),
                             contentType: "text/html; charset=utf-8")
        case .table, .csv: response = .text(200, check.table, contentType: "text/plain; charset=utf-8")
        }
        response.headers.append(("Cache-Control", "no-store"))
        response.annotations = ["findings": check.findings.count]
        return response
    }

    /// A report of findings in the format asked for, never cached: only the chosen rendering is
    /// made. `download` names the CSV attachment. The mismatch report answers with it too.
    static func answer(_ format: Format, json: @autoclosure () -> JSONValue, csv: @autoclosure () -> String,
                       html: @autoclosure () -> String, table: @autoclosure () -> String, download: String, findings: Int) -> HTTPResponse {
        var response: HTTPResponse
        switch format {
        case .json: response = .json(200, json())
        case .csv:
            response = .text(200, csv(), contentType: "text/csv; charset=utf-8; header=present")
            response.headers.append(("Content-Disposition", "attachment; filename=\"\(download)\""))
        case .html: response = .text(200, html(), contentType: "text/html; charset=utf-8")
        case .table: response = .text(200, table(), contentType: "text/plain; charset=utf-8")
        }
        response.headers.append(("Cache-Control", "no-store"))
        response.annotations = ["findings": findings]
        return response
    }
}
