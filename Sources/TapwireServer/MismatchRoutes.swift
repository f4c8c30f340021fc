import TapwireCore
import TapwireReport
import TapwireStore

/// `GET /v1/reports/mismatches?app=NAME&since=7d[&until=…][&format=json|csv|html][&minSeverity=…]`
/// with the app's read key. `since`/`until` take a duration back from now (`24h`, `7d`) or an
/// ISO 8601 time; the window starts at the hour. Without `format`, the Accept header chooses
/// (text/csv, text/html), else JSON `{"findings": [...]}`.
public enum MismatchRoutes {
    public static var all: [Route] {
        [Route("GET", "/v1/reports/mismatches", access: .read, handle: report)]
    }

    /// Default and longest window: a week by default; the event store keeps about 400 days.
    static let defaultSinceSeconds: Int64 = 7 * 86_400
    static let maxWindowSeconds: Int64 = 400 * 86_400

    /// json, csv or html (the findings' formats but the table).
    public typealias Format = FindingRoutes.Format

    /// The query of a mismatch request, validated: every mistake is a 400 that says the fix.
    public struct Query: Sendable, Equatable {
        public var since: Timestamp
        public var until: Timestamp
        public var format: Format
        public var minimumSeverity: FindingSeverity

        public static func parse(_ query: [String: String], accept: String?, now: Timestamp) throws(APIError) -> Query {
            let known: Set<String> = ["app", "since", "until", "format", "minSeverity"]
            if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
                throw APIError(.badRequest, "unknown query parameter \(FieldRules.truncatedForEcho(unknown)); this endpoint takes app, since, until, format and minSeverity")
            }
            let until = try time(query["until"], name: "until", now: now) ?? now
            let since = try time(query["since"], name: "since", now: now) ?? until.adding(microseconds: -defaultSinceSeconds * 1_000_000)
            guard since < until else { throw APIError(.badRequest, "since must be before until") }
            guard until.microseconds - since.microseconds <= maxWindowSeconds * 1_000_000 else {
                throw APIError(.badRequest, "the window is at most 400 days; pass a later since")
            }
            var format = Format.json
            if let named = query["format"] {
                guard let f = Format(rawValue: named.lowercased()), f != .table else { throw APIError(.badRequest, "format must be json, csv or html") }
                format = f
            } else if let accept = accept?.lowercased() {
                if accept.contains("text/csv") { format = .csv } else if accept.contains("text/html") { format = .html }
            }
            var severity = FindingSeverity.info
            if let named = query["minSeverity"] {
                guard let s = FindingSeverity(name: named) else { throw APIError(.badRequest, "minSeverity must be info, warning or error") }
                severity = s
            }
            return Query(since: since, until: until, format: format, minimumSeverity: severity)
        }

        static func time(_ text: String?, name: String, now: Timestamp) throws(APIError) -> Timestamp? {
            guard let text, !text.isEmpty else { return nil }
            if let seconds = DurationText.seconds(text) { return now.adding(microseconds: -seconds * 1_000_000) }
            if let t = Timestamp(iso8601: text) { return t }
            throw APIError(.badRequest, "\(name) must be a duration back from now (30m, 24h, 7d) or an ISO 8601 time, got \(FieldRules.truncatedForEcho(text))")
        }
    }

    static func report(_ call: RouteRequest) {
        guard call.requireOwnApp(), let identity = call.identity else { return }
        let query: Query
        do {
            query = try Query.parse(call.request.query, accept: call.request.header("accept"), now: .now)
        } catch {
            return call.fail(error)
        }
        call.services.database.submit({ (connection) throws(DatabaseError) in
            try MismatchStore().report(appId: identity.appId, appName: identity.appName, since: query.since, until: query.until,
                                       on: connection)
        }) { result in
            switch result {
            case .success(let full):
                let report = full.filtered(minimumSeverity: query.minimumSeverity)
                call.respond(FindingRoutes.answer(query.format, json: report.json, csv: report.csv, html: report.htmlPage, table: report.table,
                                                  download: "mismatches-\(identity.appName).csv", findings: report.findings.count))
            case .failure(let error):
                call.fail(APIError(error, doing: "the mismatch report") { APIError($0, doing: "the mismatch report") })
            }
        }
    }
}
