import TapwireCore
import TapwireStatistics
import TapwireStore

/// Why a report could not be made. Codes are stable; the HTTP layer maps them to statuses.
public struct ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidParameter = "invalid_parameter"
        case unknownTimeZone = "unknown_time_zone"
        case invalidRange = "invalid_range"
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}

/// Why a report could not be made: the request, which the caller must change, or the database.
public enum ReportFailure: Error, Sendable {
    case invalid(ReportError)
    case database(DatabaseError)

    init(_ failure: ReportStoreFailure) {
        switch failure {
        case .scope(let error): self = .invalid(ReportError(error.code == .unknownTimeZone ? .unknownTimeZone : .invalidRange, error.message))
        case .database(let error): self = .database(error)
        }
    }
}

/// The output formats, one renderer each.
public enum ReportOutputFormat: String, Sendable, CaseIterable {
    case table, json, csv, md, html

    public init?(name: String) {
        switch name.lowercased() {
        case "table", "text": self = .table
        case "json": self = .json
        case "csv": self = .csv
        case "md", "markdown": self = .md
        case "html": self = .html
        default: return nil
        }
    }

    public var contentType: String {
        switch self {
        case .table: return "text/plain; charset=utf-8"
        case .json: return "application/json"
        case .csv: return "text/csv; charset=utf-8"
        case .md: return "text/markdown; charset=utf-8"
        case .html: return "text/html; charset=utf-8"
        }
    }

    /// `findings`: the category mismatches of the same app and range and its release-regression
    /// check, shown as sections of the table, Markdown and HTML reports (JSON and CSV keep their
    /// schema; findings have their own endpoint and JSON).
    public func render(_ report: EngagementReport, findings: FindingsReport? = nil) -> String {
        switch self {
        case .table:
            var text = TableReportRenderer().render(report)
            if let findings { text += findings.reportText }
            return text
        case .json: return JSONReportRenderer().render(report)
        case .csv: return CSVReportRenderer().render(report)
        case .md:
            var text = MarkdownReportRenderer().render(report)
            if let findings {
                text += findings.reportMarkdown
            }
            return text
        case .html: return HTMLReportRenderer().render(report, findings: findings)
        }
    }

    /// Whether this format shows the findings sections (so callers only compute them when needed).
    public var showsFindings: Bool { self == .table || self == .md || self == .html }
}

extension EngagementReportService {
    /// The findings sections of a report: category mismatches over its range, and the
    /// release-regression check as of its end (or now, if that is earlier). A report whose end
    /// lies in the current hour or later shows the current look (looks are whole hours), stored
    /// by the collectors when it applies; one that ended before replays its end.
    public func findings(for report: EngagementReport, appId: Int64, regression: RegressionConfiguration = .default,
                         on connection: PostgresConnection) throws(DatabaseError) -> FindingsReport {
        let now = Timestamp.now
        let current = report.to.microseconds >= RegressionLookStore.looksEnd(now)
        return try FindingsService(regression: regression).report(appId: appId, appName: report.app, since: report.from,
                                                                   asOf: min(report.to, now), look: current ? .current : .computed,
                                                                   on: connection)
    }
}

/// A report request as the CLI flags and the HTTP query parameters both spell it, validated
/// once here so both give the same errors.
public struct ReportRequest: Sendable, Equatable {
    /// A date (YYYY-MM-DD, a local day in `timeZone`) or an ISO 8601 timestamp.
    public var from: String?
    public var to: String?
    /// `--since 7d`: the last N local days, today included; `--since 12h`: the last N hours.
    public var since: String?
    public var timeZone: String
    public var filters: ReportFilters
    public var groupBy: ReportDimension?
    public var minimumSample: MinimumSample
    public var source: ReportSource
    /// The difference whose days-to-detect the report gives, a fraction (the option is in
    /// percentage points). Nil: the adjusted difference observed, or 2 pp when not significant.
    public var targetDifference: Double?

    /// The option names, shared by `tapwire report --NAME` and `?NAME=` on the HTTP endpoints.
    public static let optionNames = ["from", "to", "since", "tz", "version", "platform", "campaign", "variant", "by", "min-sample",
                                     "target-difference"]

    public init(from: String? = nil, to: String? = nil, since: String? = nil, timeZone: String = "UTC",
                filters: ReportFilters = ReportFilters(), groupBy: ReportDimension? = nil,
                minimumSample: MinimumSample = .default, source: ReportSource = .rollups) {
        self.from = from
        self.to = to
        self.since = since
        self.timeZone = timeZone
        self.filters = filters
        self.groupBy = groupBy
        self.minimumSample = minimumSample
        self.source = source
    }

    /// Builds a request from option values (already split from flags or a query string).
    public init(options: [(String, String)]) throws(ReportError) {
        self.init()
        for (name, value) in options {
            switch name {
            case "from": from = try Self.time(value, name)
            case "to": to = try Self.time(value, name)
            case "since":
                guard Self.parseSince(value) != nil else {
                    throw ReportError(.invalidParameter, "since must be a count of days or hours, such as 7d or 12h (got \"\(value.prefix(40))\")")
                }
                since = value
            case "tz":
                guard !value.isEmpty, value.count <= 64, value.allSatisfy({ $0.isLetter || $0.isNumber || "/_+-:".contains($0) }) else {
                    throw ReportError(.unknownTimeZone, "tz must be an IANA zone name such as UTC or Europe/Bucharest")
                }
                timeZone = value
            case "version", "appVersion", "app-version": filters.appVersion = value
            case "platform": filters.platform = value
            case "campaign": filters.campaign = value
            case "variant": filters.variant = value
            case "by":
                guard let dimension = ReportDimension(flag: value) else {
                    throw ReportError(.invalidParameter, "by must be one of version, platform, campaign, variant (got \"\(value.prefix(40))\")")
                }
                groupBy = dimension
            case "min-sample", "minSample":
                guard let n = Int(value), n >= 0, n <= 1_000_000_000 else {
                    throw ReportError(.invalidParameter, "min-sample must be a whole number of delivered notifications per side, such as 100")
                }
                minimumSample.perSide = n
            case "target-difference", "targetDifference":
                targetDifference = try Self.targetDifference(value)
            default:
                throw ReportError(.invalidParameter, "unknown report option \"\(name.prefix(40))\"; known: \(Self.optionNames.joined(separator: ", "))")
            }
        }
        if since != nil, from != nil {
            throw ReportError(.invalidParameter, "give either since or from, not both")
        }
    }

    /// Percentage points, as the human formats show differences: "2", "0.5", "-1.5", "2pp".
    static func targetDifference(_ value: String) throws(ReportError) -> Double {
        var text = Substring(value)
        if text.lowercased().hasSuffix("pp") { text = text.dropLast(2) }
        guard text.count <= 20, let points = Double(text), points.isFinite, points != 0, abs(points) <= 100 else {
            throw ReportError(.invalidParameter,
                              "target-difference must be a difference in percentage points, not 0, at most 100, such as 2 or 0.5 (got \"\(value.prefix(40))\")")
        }
        return points / 100
    }

    static func time(_ value: String, _ name: String) throws(ReportError) -> String {
        if isDate(value) || Timestamp(iso8601: value) != nil { return value }
        throw ReportError(.invalidParameter,
                          "\(name) must be an ISO 8601 date or timestamp, such as 2026-12-01 or 2026-12-01T10:00:00Z (got \"\(value.prefix(40))\")")
    }

    static func isDate(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 10, bytes[4] == 45, bytes[7] == 45 else { return false }
        return Timestamp(iso8601: value) != nil
    }

    /// (days, hours): exactly one is set. Parsed by `DurationText` (units `d` or `h`, either case),
    /// bounded to 10 years; days are calendar days in the report's time zone, not 24-hour spans.
    static func parseSince(_ value: String) -> (days: Int?, hours: Int?)? {
        guard let last = value.last, "dDhH".contains(last),
              let (count, unit) = DurationText.parts(String(value.dropLast()) + last.lowercased()),
              count > 0, count <= 3_650 * 24 else { return nil }
        let n = Int(count)
        return unit == .days ? (n <= 3_650 ? (n, nil) : nil) : (nil, n)
    }
}

/// Makes an engagement report: resolves the range, reads the rollups and the manifests, builds
/// the model. Used by `tapwire report` and the HTTP endpoints alike.
public struct EngagementReportService: Sendable {
    public static let defaultDays = 30

    public init() {}

    public func scope(appId: Int64, request: ReportRequest, on connection: PostgresConnection) throws(ReportFailure) -> ReportScope {
        let since = request.since.flatMap(ReportRequest.parseSince)
        let fromDate = request.from.flatMap { ReportRequest.isDate($0) ? $0 : nil }
        let toDate = request.to.flatMap { ReportRequest.isDate($0) ? $0 : nil }
        let sinceDays = since?.days ?? (request.from == nil && since?.hours == nil ? Self.defaultDays : nil)
        let edges: (from: Timestamp?, to: Timestamp?, since: Timestamp?, now: Timestamp)
        do {
            edges = try ReportStore().dayEdges(timeZone: request.timeZone, fromDate: fromDate, toDate: toDate,
                                               sinceDays: sinceDays, on: connection)
        } catch {
            throw ReportFailure(error)
        }
        let to = request.to.map { ReportRequest.isDate($0) ? edges.to : Timestamp(iso8601: $0) } ?? edges.now
        var from: Timestamp?
        if let text = request.from {
            from = ReportRequest.isDate(text) ? edges.from : Timestamp(iso8601: text)
        } else if let hours = since?.hours {
            from = (to ?? edges.now).adding(microseconds: -Int64(hours) * 3_600_000_000)
        } else {
            from = edges.since
        }
        guard let from, let to else { throw .invalid(ReportError(.invalidRange, "the range could not be resolved")) }
        guard from < to else {
            throw .invalid(ReportError(.invalidRange, "from (\(from)) must be before to (\(to)); a --to date includes that whole day"))
        }
        guard to.microseconds - from.microseconds <= ReportStore.maxRangeDays * 86_400_000_000 else {
            throw .invalid(ReportError(.invalidRange, "the range is longer than \(ReportStore.maxRangeDays) days; ask for a shorter one"))
        }
        return ReportScope(appId: appId, from: from, to: to, timeZone: request.timeZone, filters: request.filters,
                           groupBy: request.groupBy, source: request.source)
    }

    public func report(appId: Int64, appName: String, request: ReportRequest, on connection: PostgresConnection,
                       now: Timestamp = .now) throws(ReportFailure) -> EngagementReport {
        let scope = try scope(appId: appId, request: request, on: connection)
        return try report(appName: appName, scope: scope, minimumSample: request.minimumSample,
                          targetDifference: request.targetDifference, on: connection, now: now)
    }

    public func report(appName: String, scope: ReportScope, minimumSample: MinimumSample = .default, targetDifference: Double? = nil,
                       on connection: PostgresConnection, now: Timestamp = .now) throws(ReportFailure) -> EngagementReport {
        let data: ReportData
        do {
            data = try ReportStore().load(scope, on: connection)
        } catch {
            throw ReportFailure(error)
        }
        let manifests: [String: Manifest]
        do {
            manifests = try ManifestStore().currentManifests(appId: scope.appId, on: connection)
        } catch {
            throw .database(error)
        }
        return EngagementReportBuilder(minimumSample: minimumSample, targetDifference: targetDifference)
            .build(app: appName, scope: scope, data: data, manifests: manifests, generatedAt: now)
    }
}
