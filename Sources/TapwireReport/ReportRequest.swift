import TapwireCore
import TapwireStatistics
import TapwireStore

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

    /// The option names, shared by `tapwire report --NAME` and `?NAME=` on the HTTP endpoints: a
    /// filter per dimension (`ReportDimension.flag`) among them.
    public static let optionNames = ["from", "to", "since", "tz"] + ReportDimension.allCases.map(\.flag) + ["by", "min-sample", "target-difference"]

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
            if let dimension = ReportDimension(flag: name), name != "by" {
                filters[dimension] = value
                continue
            }
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
            case "by":
                guard let dimension = ReportDimension(flag: value) else {
                    throw ReportError(.invalidParameter, "by must be one of \(ReportDimension.allCases.map(\.flag).joined(separator: ", ")) (got \"\(value.prefix(40))\")")
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
